// Every write and sync of a small send fails in turn, as SQLite's I/O-error tests fail the 1st, 2nd,
// 3rd … operation of a run: for every N, a full disk (ENOSPC, sticky), a passing I/O error (EIO),
// in turn the other sticky errnos a disk gives, and every sync from N on failing while writes go
// through; a failed sync drops what it covered. Then the fault is freed and
// the campaign is finished as the error says. No answer the gateway gave is lost, nothing is sent
// twice, every record is reported once, and a stop counts what the resume then finds
// (docs/campaign-state.md#when-the-disk-fails).
import { statSync, truncateSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { send, startSimulator, type Simulator, type SummaryDocument } from '../../src/index.js';
import { campaignIdentity } from '../../src/journal/identity.js';
import { findDuplicates, type LedgerEntry } from '../../src/simulator/index.js';
import { injectDiskFault, type DiskFault, type DiskOp } from '../../src/shared/disk.js';
import { SmsSendError } from '../../src/shared/errors.js';
import { memoryDir, parseCsv, writeCampaignCsv } from '../helpers/files.js';

const CREDENTIALS = { username: 'disk-user', password: 'disk-secret' };
const RECORDS = 200;
/** Four batches, two in flight at a time. */
const SENDING = { batchSize: 50, concurrency: 2, outageGrace: 0 };

/**
 * A full disk and a quota stay full, a read-only remount stays so, a file at its size limit too;
 * an I/O error passes. `syncs`: only syncs fail, writes go through (a writeback error).
 */
type Errno = [code: string, words: string, sticky: boolean, syncs?: 'syncs'];
const FULL: Errno = ['ENOSPC', 'no space left on device', true];
const PASSING: Errno = ['EIO', 'i/o error', false];
/**
 * Sticky like a full disk, and handled by the same code: each takes every third N, so each meets
 * every kind of file without tripling the matrix.
 */
const OTHER_STICKY: Errno[] = [
  ['EDQUOT', 'disk quota exceeded', true],
  ['EROFS', 'read-only file system', true],
  ['EFBIG', 'file too large', true],
];
/** Every sync from the Nth operation on fails with EIO while writes succeed: the classic writeback error. */
const SYNCS_FAIL: Errno = ['EIO', 'i/o error', true, 'syncs'];
const errnosOf = (n: number): Errno[] => [
  FULL,
  PASSING,
  OTHER_STICKY[n % OTHER_STICKY.length]!,
  SYNCS_FAIL,
];
/** A case's name: its errno (with `SYNC` when only syncs fail) and its N. */
const caseName = ([code, , , syncs]: Errno, n: number) => `${code}${syncs ? 'SYNC' : ''}-${n}`;

/** Each case's fault, by the folder its files are in: the cases of one N run side by side. */
const faults = new Map<string, DiskFault>();

let sim: Simulator;
let dir: { path: string; remove: () => Promise<void> };
let input: string;
/** The operations of a send that meets no fault: the Ns to fail. */
let operations: string[];
let cases = 0;

beforeAll(async () => {
  sim = await startSimulator({ credentials: CREDENTIALS });
  dir = await memoryDir();
  input = join(dir.path, 'campaign.csv');
  await writeCampaignCsv(input, RECORDS);
  // A config file named, so no run searches the folders above for one.
  await writeFile(join(dir.path, 'config.json'), '{}');
  operations = [];
  injectDiskFault((op, path, data) => {
    if (path.includes('-baseline')) operations.push(`${op} ${path.slice(dir.path.length)}`);
    const name = /(?:state|report)-([A-Z]+-\d+)/.exec(path)?.[1];
    return name === undefined ? undefined : faults.get(name)?.(op, path, data);
  });
  await send(options('baseline'));
});

afterAll(async () => {
  injectDiskFault(undefined);
  expect(faults.size).toBe(0);
  await sim.stop();
  await dir.remove();
});

function options(name: string, more: { resume?: boolean; force?: boolean } = {}) {
  return {
    inputs: [input],
    config: join(dir.path, 'config.json'),
    env: {},
    settings: {
      endpoint: sim.url,
      ...CREDENTIALS,
      stateDir: join(dir.path, `state-${name}`),
      // A campaign of its own, so the cases of one N running side by side have MessageIds apart.
      campaign: `disk-${name}`,
      ...SENDING,
    },
    report: join(dir.path, `report-${name}.csv`),
    ...more,
  };
}

/**
 * The Nth operation of case `name` fails, and with `sticky` every one after it, until the fault
 * is cleared; a write puts its first 7 bytes in the file first, as one on a full disk does. A
 * sync that fails drops what it covered, as the kernel may: the file is cut back to what its
 * last good sync made durable (PostgreSQL's 2018 lesson), so nothing unsynced can pass for kept.
 */
function failFrom(
  name: string,
  n: number,
  errno: Errno,
): { failed: string[]; powerCut: () => void } {
  const [code, words, sticky, syncs] = errno;
  const durable = new Map<string, number>();
  const undone = new Set<string>();
  const drop = (path: string) => truncateSync(path, Math.min(durable.get(path) ?? 0, sizeOf(path)));
  const seen = {
    count: 0,
    failed: [] as string[],
    // What a failed sync left in the page cache is gone once the power is: only what a good
    // sync made durable stays. Only syncs fail: the process reads its pages back until then.
    powerCut: () => undone.forEach((path) => isFile(path) && drop(path)),
  };
  faults.set(name, (op: DiskOp, path) => {
    seen.count++;
    const syncing = op === 'sync' || op === 'datasync';
    if (seen.count < n || (!sticky && seen.count > n) || (syncs && !syncing)) {
      if (syncing) durable.set(path, sizeOf(path));
      return undefined;
    }
    seen.failed.push(`${op} ${path.slice(dir.path.length)}`);
    if (syncing && isFile(path)) {
      if (syncs) undone.add(path);
      else drop(path);
    }
    const error = Object.assign(new Error(`${code}: ${words}, ${op}`), { code });
    return { error, written: 7 };
  });
  return seen;
}

function sizeOf(path: string): number {
  return statSync(path, { throwIfNoEntry: false })?.size ?? 0;
}

function isFile(path: string): boolean {
  return statSync(path, { throwIfNoEntry: false })?.isFile() === true;
}

type Outcome = { document?: SummaryDocument; error?: SmsSendError };

async function attempt(run: Promise<SummaryDocument>): Promise<Outcome> {
  try {
    return { document: await run };
  } catch (error) {
    // Anything but a typed error (exit 70, a bug) fails the test here.
    if (!(error instanceof SmsSendError)) throw error;
    return { error };
  }
}

/** Sends with the Nth operation failing, then finishes the campaign as the error says to. */
async function runCase(n: number, errno: Errno): Promise<void> {
  const [code, words] = errno;
  const name = caseName(errno, n);
  const from = sim.ledger.length;
  const fault = failFrom(name, n, errno);
  const first = await attempt(send(options(name))).finally(() => faults.delete(name));
  fault.powerCut();
  const context = `${name}, failed ${fault.failed[0] ?? 'nothing'}: ${first.error?.message ?? 'no error'}`;
  const firstLedger = ledgerOf(name, from);
  const accepted = new Map(firstLedger.map((entry) => [entry.messageId, entry]));

  // Nothing sent after a stop or a refusal but what was in flight; then the way on it names.
  const next = first.error?.next;
  if (first.error) {
    expect([2, 6], context).toContain(first.error.exitCode);
    expect(next?.add ?? [], context).not.toContain('--retry-unknown');
    // --force is advised only where nothing of the campaign was accepted: it cannot send twice.
    if (next?.add?.includes('--force')) expect(firstLedger, context).toEqual([]);
    if (first.error.exitCode === 2) expect(firstLedger, context).toEqual([]);
  }
  // A stop (exit 6) says to finish the campaign with --resume (the API's words: resume: true).
  const more = {
    resume: first.error?.exitCode === 6 || next?.add?.includes('--resume') === true,
    force: next?.add?.includes('--force') === true,
  };
  const second = first.error ? await attempt(send(options(name, more))) : first;
  expect(second.error?.message, context).toBeUndefined();
  const ledger = ledgerOf(name, from);
  expect(findDuplicates(ledger), context).toEqual([]);

  const rows = parseCsv(await readFile(options(name).report, 'utf8'));
  expect(
    rows.map((r) => Number(r.row)).sort((a, b) => a - b),
    context,
  ).toEqual(Array.from({ length: RECORDS }, (_v, i) => i + 1));
  const left = first.error?.document && stateLeftOf(first.error.document);
  const lost = new Set(left ? left.lost.map((answer) => answer.row) : []);
  // A record the gateway accepted is never called "perhaps never sent": that invites a resend.
  for (const row of rows) {
    if (row.outcome === 'unknown' && accepted.has(row.messageId!)) {
      expect(row.error, context).not.toMatch(/never sent/);
    }
  }
  // What the stop lists of an answer it could not keep is the gateway's answer: the operator's copy.
  for (const answer of left?.lost ?? []) {
    const entry = accepted.get(answer.messageId);
    if (answer.outcome === 'accepted') {
      expect({ row: answer.row, transactionId: answer.transactionId }, context).toEqual({
        row: answer.row,
        transactionId: entry?.transactionId,
      });
    }
  }
  answersKept(rows, accepted, lost, context);
  if (left) {
    // The stop said what the resume found, number for number (a stop before the first batch
    // left nothing to resume: the run after it starts the campaign afresh).
    const { summary } = second.document!;
    const resumed = summary.resumed ?? { fromJournal: 0, fromReport: 0, inFlight: 0, unposted: 0 };
    expect(
      {
        settled: left.settled,
        inReport: left.inReport,
        sentNoAnswer: left.sentNoAnswer,
        unposted: left.unposted,
        toSend: left.toSend,
      },
      context,
    ).toEqual({
      settled: resumed.fromJournal,
      inReport: resumed.fromReport,
      sentNoAnswer: resumed.inFlight,
      unposted: resumed.unposted,
      toSend: ledger.length - firstLedger.length,
    });
    expect(first.error?.message, context).toMatch(
      new RegExp(`^(campaign state|the report \\S+) could not be written: ${words} \\(${code}\\)`),
    );
  }
  cases++;
}

/**
 * What the gateway accepted of case `name`'s campaign since the ledger held `from` entries: each
 * case's campaign is named for it.
 */
function ledgerOf(name: string, from: number): LedgerEntry[] {
  const { stem } = campaignIdentity('', `disk-${name}`);
  return sim.ledger.slice(from).filter((entry) => entry.messageId.startsWith(`${stem}-`));
}

function stateLeftOf(document: object) {
  return (document as SummaryDocument).summary.stateLeft;
}

/** Every message the gateway accepted in the first run is reported accepted with its TransactionId. */
function answersKept(
  rows: Record<string, string>[],
  accepted: Map<string, LedgerEntry>,
  lost: Set<number>,
  context: string,
): void {
  for (const row of rows) {
    const entry = accepted.get(row.messageId!);
    if (!entry || lost.has(Number(row.row))) continue;
    expect(
      { row: row.row, outcome: row.outcome, transactionId: row.transactionId },
      context,
    ).toEqual({ row: row.row, outcome: 'accepted', transactionId: entry.transactionId });
  }
}

describe('a send whose Nth write or sync fails, for every N', () => {
  it('counts the operations of a send: enough to reach every file it writes', () => {
    expect(operations.length).toBeGreaterThan(40);
    for (const file of [
      'journal.ndjson',
      'manifest.json',
      '/lock',
      'spool',
      'dlr-secret',
      'report-',
    ]) {
      expect(
        operations.some((op) => op.includes(file)),
        file,
      ).toBe(true);
    }
  });

  it('with every errno: nothing received is lost, nothing sent twice, every record once', async () => {
    for (let n = 1; n <= operations.length; n++) {
      // Every case of this N ends before a failure is told: none is left running into the next.
      const ended = await Promise.allSettled(errnosOf(n).map((errno) => runCase(n, errno)));
      for (const end of ended) if (end.status === 'rejected') throw end.reason;
    }
    // Hundreds of sends one after another: on a loaded two-core runner they take past the
    // default timeout, and a timeout here says nothing of what the test checks.
  }, 120_000);

  afterAll(() => {
    // Every N of every errno ran, and counted: the closing note reports the figure.
    expect(cases).toBe(4 * operations.length);
  });
});
