// A run killed at every point of its journal, resumed in-process: the journal of a finished
// campaign cut at each line's end and inside each line (a torn tail), with the manifest a killed
// run leaves, then --resume against the simulator. Nothing settled or in flight is sent again,
// and every record is reported once. And a finished campaign's resume answers from its manifest.
import { readFileSync } from 'node:fs';
import { cp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SendEmitter, send, startSimulator, type Simulator } from '../../src/index.js';
import { rowsOf } from '../../src/journal/columns.js';
import { campaignPaths, readManifest, writeManifest } from '../../src/journal/folder/campaigns.js';
import { parseCsv, tempDir, writeCampaignCsv } from '../helpers/files.js';

const CREDENTIALS = { username: 'resume-user', password: 'resume-secret' };
const RECORDS = 5;

let sim: Simulator;
let dir: { path: string; remove: () => Promise<void> };
let input: string;
/** The state folder and report of the campaign sent whole, once. */
let original: { state: string; report: string; id: string; journal: string };

function settings(stateDir: string) {
  return { endpoint: sim.url, ...CREDENTIALS, stateDir, batchSize: 2, concurrency: 1 };
}

beforeAll(async () => {
  sim = await startSimulator({ credentials: CREDENTIALS });
  dir = await tempDir();
  input = join(dir.path, 'kills.csv');
  await writeCampaignCsv(input, RECORDS);
  const state = join(dir.path, 'state');
  const report = join(dir.path, 'whole.csv');
  const whole = await send({ inputs: [input], settings: settings(state), report });
  const id = whole.summary.campaign;
  original = {
    state,
    report,
    id,
    journal: await readFile(campaignPaths(state, id).journal, 'utf8'),
  };
});

afterAll(async () => {
  await sim.stop();
  await dir.remove();
});

/** The rows a journal's complete lines record as sent (a batch line) and as settled (a result). */
function recorded(journal: string): { sent: Set<number>; settled: Set<number> } {
  const sent = new Set<number>();
  const settled = new Set<number>();
  for (const line of journal.split('\n')) {
    if (!line.endsWith('}')) continue;
    const parsed = JSON.parse(line) as { t: string; r?: number[] };
    if (parsed.t === 'batch') for (const row of rowsOf(parsed.r!)) sent.add(row);
    if (parsed.t === 'result') for (const row of rowsOf(parsed.r!)) settled.add(row);
  }
  return { sent, settled };
}

/** Every point a kill can leave the journal at: after each line, and halfway through each. */
function cuts(journal: string): number[] {
  const points: number[] = [];
  let at = 0;
  for (const line of journal.split('\n').slice(0, -1)) {
    points.push(at + (line.length >> 1), at + line.length + 1);
    at += line.length + 1;
  }
  return points;
}

describe('--resume after a kill at any point of the journal', () => {
  it.each([
    ['a report that lost the answers', false],
    ['the report that holds every answer', true],
  ])(
    'with %s: sends only what no complete line recorded, and reports every record once',
    async (_name, reportKept) => {
      const points = cuts(original.journal);
      expect(points.length).toBeGreaterThanOrEqual(2 * (1 + 2 * Math.ceil(RECORDS / 2)));
      for (const [n, cut] of points.entries()) {
        await resumeAfterCut(`${String(reportKept)}-${n}`, cut, reportKept);
      }
    },
  );
});

/**
 * The journal cut at byte `cut` and resumed. A sent record the journal has no answer for is
 * `unknown`, unless the report its run wrote holds the gateway's answer: then it is that answer,
 * with its TransactionId (docs/campaign-state.md#when-the-disk-fails).
 */
async function resumeAfterCut(name: string, cut: number, reportKept: boolean): Promise<void> {
  const state = join(dir.path, `cut-${name}`);
  const paths = campaignPaths(state, original.id);
  await mkdir(paths.dir, { recursive: true });
  await cp(campaignPaths(original.state, original.id).manifest, paths.manifest);
  const journal = original.journal.slice(0, cut);
  await writeFile(paths.journal, journal);
  const report = join(dir.path, `cut-${name}.csv`);
  const whole = readFileSync(original.report, 'utf8');
  await writeFile(report, reportKept ? whole : `${whole.split('\n')[0]}\n`);
  // As a killed run leaves its manifest: running, with the counts of its start and its report.
  const manifest = (await readManifest(paths.manifest))!;
  const { summary, finishedAt, ...rest } = manifest;
  expect(summary && finishedAt).toBeTruthy();
  const zero = { accepted: 0, rejected: 0, invalid: 0, failed: 0, unknown: 0, skipped: 0 };
  await writeManifest(paths.manifest, {
    ...rest,
    reports: [report],
    status: 'running',
    counts: zero,
  });

  const before = sim.ledger.length;
  const resumed = await send({
    inputs: [input],
    settings: settings(state),
    report,
    resume: true,
  }).catch((error: unknown) => ({ error }));
  const context = `cut ${name} at byte ${cut}: ${JSON.stringify(resumed).slice(0, 300)}`;
  const { sent, settled } = recorded(journal);
  const rows = parseCsv(await readFile(report, 'utf8'));
  // Every record once, in the report.
  expect(
    rows.map((r) => Number(r.row)).sort((a, b) => a - b),
    context,
  ).toEqual(Array.from({ length: RECORDS }, (_v, i) => i + 1));
  const byId = new Map(rows.map((r) => [r.messageId, Number(r.row)]));
  const resent = sim.ledger.slice(before).map((entry) => byId.get(entry.messageId));
  // What the journal recorded as sent is never sent again; the rest exactly once.
  const expected = rows.map((r) => Number(r.row)).filter((row) => !sent.has(row));
  expect(
    resent.sort((a, b) => a! - b!),
    context,
  ).toEqual(expected);
  const originals = new Map(parseCsv(whole).map((r) => [r.row, r.transactionId]));
  for (const row of rows) {
    const number = Number(row.row);
    const answered = settled.has(number) || !sent.has(number) || reportKept;
    const outcome = answered ? 'accepted' : 'unknown';
    expect({ row: number, outcome: row.outcome }, context).toEqual({ row: number, outcome });
    // An answer taken from the report keeps the gateway's TransactionId.
    if (sent.has(number) && !settled.has(number) && reportKept) {
      expect(row.transactionId, context).toBe(originals.get(row.row));
    }
  }
  await rm(state, { recursive: true, force: true });
}

describe('--resume of a campaign killed with records settled', () => {
  it('sends its first batch before it reports what earlier runs settled', async () => {
    // Cut after the first result line: rows 1 and 2 settled, the rest never sent.
    const lines = original.journal.split('\n');
    const firstResult = lines.findIndex((line) => line.startsWith('{"t":"result"'));
    const state = join(dir.path, 'order');
    const paths = campaignPaths(state, original.id);
    await mkdir(paths.dir, { recursive: true });
    await writeFile(paths.journal, `${lines.slice(0, firstResult + 1).join('\n')}\n`);
    const manifest = (await readManifest(campaignPaths(original.state, original.id).manifest))!;
    const { summary, finishedAt, ...rest } = manifest;
    expect(summary && finishedAt).toBeTruthy();
    await writeManifest(paths.manifest, { ...rest, status: 'running' });
    // What this run's journal held when each earlier record was reported: a batch line of run 2
    // means its first batch was recorded, the moment before it is posted.
    const events = new SendEmitter();
    const seen: { row: number; batchOfThisRun: boolean }[] = [];
    events.on('record', (row, earlier) => {
      if (!earlier) return;
      const journal = readFileSync(paths.journal, 'utf8');
      seen.push({ row: row.row, batchOfThisRun: journal.includes('{"t":"batch","b":"2:') });
    });
    const report = join(dir.path, 'order.csv');
    const resumed = await send({
      inputs: [input],
      settings: settings(state),
      report,
      resume: true,
      events,
    });
    expect(seen).toEqual([
      { row: 1, batchOfThisRun: true },
      { row: 2, batchOfThisRun: true },
    ]);
    expect(resumed.summary).toMatchObject({
      byOutcome: { accepted: RECORDS },
      resumed: { fromJournal: 2, fromReport: 0, inFlight: 0, unposted: 0 },
    });
    const rows = parseCsv(await readFile(report, 'utf8'));
    expect(rows.map((r) => Number(r.row)).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5]);
  });
});

describe('--resume of a finished campaign', () => {
  it('answers from its manifest: the journal is not read, nothing is sent, the report stays', async () => {
    const state = join(dir.path, 'finished');
    await cp(original.state, state, { recursive: true });
    const report = join(dir.path, 'finished.csv');
    await cp(original.report, report);
    const paths = campaignPaths(state, original.id);
    const manifest = (await readManifest(paths.manifest))!;
    await writeManifest(paths.manifest, { ...manifest, reports: [report] });
    // A journal this version would refuse to read: reading it would end the resume.
    await writeFile(paths.journal, '{"t":"start","v":99,"campaign":"x","run":9,"at":"x"}\n');
    const reportBefore = await readFile(report, 'utf8');
    const before = sim.ledger.length;
    const answer = await send({ inputs: [input], settings: settings(state), report, resume: true });
    expect(sim.ledger.length).toBe(before);
    expect(answer.summary).toMatchObject({
      campaign: original.id,
      total: RECORDS,
      byOutcome: { accepted: RECORDS },
      exitCode: 0,
      resumed: { fromJournal: RECORDS, fromReport: 0, inFlight: 0, unposted: 0 },
    });
    expect(await readFile(report, 'utf8')).toBe(reportBefore);
    // Another report path needs the journal (the report is written afresh from it): refused here.
    await expect(
      send({
        inputs: [input],
        settings: settings(state),
        report: join(dir.path, 'elsewhere.csv'),
        resume: true,
      }),
    ).rejects.toMatchObject({ code: 'journal-version' });
    expect(sim.ledger.length).toBe(before);
  });
});
