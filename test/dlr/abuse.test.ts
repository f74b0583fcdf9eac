// The receiver under abuse: forged, oversized and slow requests change nothing, cost bounded memory and log, and valid reports still get in.
import { mkdir, readFile } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DlrVerifier } from '../../src/dlr/proof.js';
import { DlrReceiver } from '../../src/dlr/receiver.js';
import { folderDlrKeys } from '../../src/journal/folder/dlr-keys.js';
import { campaignPaths, writeManifest } from '../../src/journal/folder/campaigns.js';
import type { Manifest } from '../../src/journal/manifest.js';
import type { RowResult } from '../../src/message/outcome.js';
import { openReport } from '../../src/report/writer.js';
import { systemClock } from '../../src/shared/clock.js';
import { proofFor, type DlrSigner } from '../../src/shared/dlr-proof.js';
import { parseCsv, tempDir } from '../helpers/files.js';
import { folderStoreAt } from '../helpers/state.js';

const CAMPAIGN = '0123456789abcdef';
const ROWS = 6;
const FORGED = 3000;
const LOGGED_PER_REASON = 5;

let dir: Awaited<ReturnType<typeof tempDir>>;
let stateDir: string;
let report: string;
let log: string;
let signer: DlrSigner;
let receiver: DlrReceiver | undefined;

beforeEach(async () => {
  dir = await tempDir();
  stateDir = join(dir.path, 'state');
  report = join(dir.path, 'r.csv');
  log = join(dir.path, 'r.csv.dlr.ndjson');
  signer = { key: (await folderDlrKeys(stateDir, true)).keys[0]!, campaign: CAMPAIGN };
  const paths = campaignPaths(stateDir, CAMPAIGN);
  await mkdir(paths.dir, { recursive: true });
  await writeManifest(paths.manifest, {
    v: 1,
    id: CAMPAIGN,
    named: false,
    contentHash: CAMPAIGN,
    inputs: [],
    target: 'gateway',
    reports: [resolve(report)],
    createdAt: '2026-01-01T00:00:00Z',
    startedAt: '2026-01-01T00:00:00Z',
    updatedAt: '2026-01-01T00:00:00Z',
    status: 'finished',
    runs: 1,
    records: ROWS,
    counts: { accepted: 0, rejected: 0, invalid: 0, failed: 0, unknown: ROWS, skipped: 0 },
  } satisfies Manifest);
  const writer = await openReport(report, { force: true });
  await writer.write(
    Array.from({ length: ROWS }, (_, i): RowResult => ({
      row: i + 1,
      to: `474100000${i}`,
      messageId: `${CAMPAIGN.slice(0, 10)}-${i + 1}`,
      outcome: 'unknown',
      attempts: 1,
      error: 'HTTP 500 after the request was sent',
    })),
  );
  await writer.close();
});

afterEach(async () => {
  await receiver?.stop();
  receiver = undefined;
  await dir.remove();
});

/** A client that opens a connection, sends part of a request and then nothing. */
function slowClient(port: number, partial: string): Promise<'closed'> {
  return new Promise((done) => {
    const socket: Socket = connect(port, '127.0.0.1', () => socket.write(partial));
    socket.on('error', () => undefined);
    socket.on('close', () => done('closed'));
    socket.resume();
  });
}

/** Runs the jobs with at most `width` at a time. */
async function pool(jobs: Array<() => Promise<void>>, width: number): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < jobs.length) await jobs[next++]!();
    }),
  );
}

describe('DlrReceiver under abuse', () => {
  it('applies the valid reports among forged, oversized and slow requests, and nothing else', async () => {
    const verifier = await DlrVerifier.open({
      store: folderStoreAt(stateDir),
      reportPath: report,
      clock: systemClock,
    });
    receiver = await DlrReceiver.start({
      reportPath: report,
      logPath: log,
      updateIntervalMs: 50,
      verify: verifier.verify,
      limits: {
        headersTimeoutMs: 300,
        requestTimeoutMs: 600,
        maxTargetBytes: 2048,
        maxBodyBytes: 4096,
        loggedPerReason: LOGGED_PER_REASON,
      },
    });
    const { url, port } = receiver;
    const id = (i: number) => `${CAMPAIGN.slice(0, 10)}-${i}`;

    // Slow clients: headers never finished, and a body that never comes. The receiver cuts them.
    const slow = [
      ...Array.from({ length: 4 }, () =>
        slowClient(port, 'GET /dlr?msgid=x HTTP/1.1\r\nHost: a\r\n'),
      ),
      ...Array.from({ length: 4 }, () =>
        slowClient(port, 'POST /dlr HTTP/1.1\r\nHost: a\r\nContent-Length: 100\r\n\r\nmsgid='),
      ),
    ];

    const answers: number[] = [];
    const get = (query: string) => async () => {
      const answer = await fetch(`${url}/dlr?${query}`);
      await answer.arrayBuffer();
      answers.push(answer.status);
    };
    const forgedKinds = [
      // No proof at all, for a real MessageId.
      (i: number) => get(`msgid=${id(1 + (i % ROWS))}&status=DELIVRD`),
      // A made-up proof.
      (i: number) =>
        get(`msgid=${id(1 + (i % ROWS))}&status=UNDELIV&smsig=${'A'.repeat(22)}.${CAMPAIGN}`),
      // A genuine proof replayed for another MessageId.
      (i: number) =>
        get(`msgid=${id(1 + (i % ROWS))}&status=UNDELIV&smsig=${proofFor(signer, `other-${i}`)}`),
    ];
    const jobs: Array<() => Promise<void>> = [];
    for (let i = 0; i < FORGED; i++) {
      jobs.push(forgedKinds[i % forgedKinds.length]!(i));
      // Valid reports spread through the flood.
      if (i % (FORGED / ROWS) === 0) {
        const row = 1 + i / (FORGED / ROWS);
        jobs.push(get(`msgid=${id(row)}&status=DELIVRD&smsig=${proofFor(signer, id(row))}`));
      }
    }
    // Oversized: a query string and a body over the caps.
    jobs.push(get(`msgid=${id(1)}&status=UNDELIV&pad=${'x'.repeat(2500)}`));
    jobs.push(async () => {
      const answer = await fetch(`${url}/dlr`, {
        method: 'POST',
        body: `msgid=${id(1)}&status=UNDELIV&pad=${'x'.repeat(8192)}`,
      });
      await answer.arrayBuffer();
      answers.push(answer.status);
    });
    await pool(jobs, 16);

    expect(await Promise.all(slow)).toEqual(Array.from({ length: 8 }, () => 'closed'));
    expect(answers.filter((s) => s === 200)).toHaveLength(FORGED + ROWS);
    expect(answers.filter((s) => s !== 200).sort()).toEqual([413, 414]);
    expect(receiver.counts).toMatchObject({
      received: ROWS,
      byStatus: { DELIVRD: ROWS },
      refused: { unsigned: FORGED / 3, 'bad signature': (2 * FORGED) / 3 },
      malformed: 2,
    });
    // Memory: only the valid reports are kept.
    expect(receiver.book.size).toBe(ROWS);

    const stopped = receiver;
    receiver = undefined;
    const fold = await stopped.stop();
    expect(fold).toMatchObject({ kind: 'updated', matched: ROWS, unmatched: 0 });
    expect(stopped.confirmed).toBe(ROWS);
    const rows = parseCsv(await readFile(report, 'utf8'));
    expect(rows.map((r) => [r['outcome'], r['deliveryStatus']])).toEqual(
      Array.from({ length: ROWS }, () => ['accepted', 'DELIVRD']),
    );

    // The log: every valid report, and only the first few of each kind of refused request.
    const lines = (await readFile(log, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(
      lines.filter((l) => l['refused'] === undefined && l['malformed'] === undefined),
    ).toHaveLength(ROWS);
    expect(lines.filter((l) => l['refused'] === 'unsigned')).toHaveLength(LOGGED_PER_REASON);
    expect(lines.filter((l) => l['refused'] === 'bad signature')).toHaveLength(LOGGED_PER_REASON);
    expect(lines.length).toBeLessThanOrEqual(ROWS + 2 * LOGGED_PER_REASON + 2);
  });
});
