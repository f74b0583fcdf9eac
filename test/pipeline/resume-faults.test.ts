// The journal makes faults resumable, through the campaign's one path as a user runs it: a resume
// sends again only what surely failed, leaves unknown what may have gone, takes a torn last line,
// abandoned requests and a spool that does not read back in its stride; an outage of the gateway
// mid-run is waited out, or stops the run for --resume. Checked against the simulator's ledger.
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { campaignPaths } from '../../src/journal/folder/campaigns.js';
import { rowsOf } from '../../src/journal/columns.js';
import {
  findDuplicates,
  startSimulator,
  type FaultOptions,
  type Simulator,
} from '../../src/simulator/index.js';
import type { CliResult } from '../helpers/cli.js';
import { parseCsv, tempDir, writeCampaignCsv } from '../helpers/files.js';
import { runInProcess } from '../helpers/in-process.js';
import { countOutcomes, promiseBreaches, waitFor } from '../helpers/reliability.js';
import { folderState } from '../helpers/state.js';

const RECORDS = 300;
const BATCH = 10;
const CAMPAIGN = 'faultcamp';

let dir: Awaited<ReturnType<typeof tempDir>>;
let sims: Simulator[] = [];
beforeEach(async () => {
  dir = await tempDir();
  await writeCampaignCsv(join(dir.path, 'campaign.csv'), RECORDS);
});
afterEach(async () => {
  await Promise.all(sims.map((sim) => sim.stop()));
  sims = [];
  await dir.remove();
});

async function simulator(faults: FaultOptions, seed = 7): Promise<Simulator> {
  const sim = await startSimulator({ faults, seed });
  sims.push(sim);
  return sim;
}

const state = () => join(dir.path, 'state');
const report = () => join(dir.path, 'campaign.report.csv');
const journal = () => campaignPaths(state(), CAMPAIGN).journal;

interface Sent extends CliResult {
  rows: Record<string, string>[];
  summary?: { resumed?: Record<string, number>; stoppedReason?: string };
}

/** `sms-send campaign.csv --campaign faultcamp --endpoint SIM --json ...` in-process. */
async function send(sim: Simulator, extra: string[] = [], concurrency = 3): Promise<Sent> {
  const result = await runInProcess(
    [
      'campaign.csv',
      '--campaign',
      CAMPAIGN,
      '--endpoint',
      sim.url,
      '--batch-size',
      String(BATCH),
      '--concurrency',
      String(concurrency),
      '--outage-grace',
      '0',
      '--json',
      ...extra,
    ],
    {
      cwd: dir.path,
      env: { SMS_SEND_STATE_DIR: state(), SMS_SEND_USERNAME: 'u', SMS_SEND_PASSWORD: 'p' },
    },
  );
  const rows = parseCsv(await readFile(report(), 'utf8').catch(() => ''));
  const document = result.stdout ? (JSON.parse(result.stdout) as Sent) : undefined;
  return { ...result, rows, summary: document?.summary };
}

/** Sends the run Ctrl-C's signal (`times` of them) once `when` says so. */
async function interrupt(running: Promise<Sent>, when: () => boolean, times = 1): Promise<Sent> {
  const before = new Set(process.listeners('SIGINT'));
  await waitFor(() => when() || undefined, 'the moment to interrupt');
  for (let n = 0; n < times; n++) {
    for (const listener of process.listeners('SIGINT')) {
      if (!before.has(listener)) listener('SIGINT');
    }
  }
  return running;
}

const requestsWith = (sim: Simulator, outcome: string) =>
  sim.requests.filter((r) => r.outcome === outcome).length;

describe('the journal makes faults resumable', () => {
  it('resume sends again only what surely failed; unknown stays unknown; --retry-unknown resends it', async () => {
    const sim = await simulator(
      { processResultFalse: 0.25, errorAfterProcessing: 0.2, resetBeforeProcessing: 0.1 },
      31,
    );
    const first = await send(sim, ['--retries', '3']);
    expect(promiseBreaches(first.rows, RECORDS, sim.ledger)).toEqual([]);
    const before = new Map(first.rows.map((r) => [r.row, r]));
    const unknown1 = first.rows.filter((r) => r.outcome === 'unknown');
    const accepted1 = first.rows.filter((r) => r.outcome === 'accepted');
    expect(unknown1.length).toBeGreaterThan(0);
    expect(first.rows.some((r) => r.outcome === 'failed')).toBe(true);

    sim.setFaults({});
    const second = await send(sim, ['--resume']);
    expect(promiseBreaches(second.rows, RECORDS, sim.ledger)).toEqual([]);
    expect(second.summary?.resumed).toEqual({
      fromJournal: accepted1.length + unknown1.length,
      fromReport: 0,
      inFlight: 0,
      unposted: 0,
    });
    for (const row of second.rows) {
      const earlier = before.get(row.row)!;
      const settled = earlier.outcome === 'accepted' || earlier.outcome === 'unknown';
      // Settled by the first run: taken from the journal, not sent again; the rest accepted now.
      expect({ row: row.row, outcome: row.outcome, tx: settled ? row.transactionId : '' }).toEqual({
        row: earlier.row,
        outcome: settled ? earlier.outcome : 'accepted',
        tx: settled ? earlier.transactionId : '',
      });
    }
    expect(findDuplicates(sim.ledger)).toEqual([]);

    // --retry-unknown resends the unknown ones: duplicates are exactly those the gateway had.
    const hadThem = new Set(sim.ledger.map((e) => e.messageId));
    const third = await send(sim, ['--resume', '--retry-unknown']);
    expect(countOutcomes(third.rows)).toEqual({ accepted: RECORDS });
    const duplicated = findDuplicates(sim.ledger).map((group) => group[0]!.messageId);
    expect(duplicated.sort()).toEqual(
      unknown1
        .map((r) => r.messageId!)
        .filter((id) => hadThem.has(id))
        .sort(),
    );
  });

  it('a run stopped between batches, whose last journal line was torn, resumes without loss or resend', async () => {
    const sim = await simulator({ latencyMs: 5 });
    const first = await interrupt(send(sim), () => sim.ledger.length >= 4 * BATCH);
    expect(first.code).toBe(130);
    expect(promiseBreaches(first.rows, RECORDS, sim.ledger)).toEqual([]);
    expect(first.rows.filter((r) => r.outcome === 'skipped').length).toBeGreaterThan(0);

    // As if killed while writing the last result: its line is cut in half.
    const lines = (await readFile(journal(), 'utf8')).split('\n').filter((l) => l !== '');
    const lastDone = lines.findLastIndex((l) => l.startsWith('{"t":"result"'));
    const tornBatch = JSON.parse(lines[lastDone]!) as { r: number[] };
    const tornRows = new Set([...rowsOf(tornBatch.r)].map(String));
    const kept = lines.filter((_, i) => i !== lastDone);
    const half = lines[lastDone]!.slice(0, lines[lastDone]!.length >> 1);
    await writeFile(journal(), `${kept.join('\n')}\n${half}`);
    // Its report is gone too, or the resume would take the torn batch's answers from it.
    await rm(report());

    const second = await send(sim, ['--resume']);
    expect(promiseBreaches(second.rows, RECORDS, sim.ledger)).toEqual([]);
    expect(second.summary?.resumed?.inFlight).toBe(tornRows.size);
    for (const row of second.rows) {
      expect({ row: row.row, outcome: row.outcome }).toEqual({
        row: row.row,
        outcome: tornRows.has(row.row!) ? 'unknown' : 'accepted',
      });
    }
    expect(sim.ledger).toHaveLength(RECORDS);
  });

  it('abandoned requests (second Ctrl-C) are unknown, the rest skipped; resume sends only the rest', async () => {
    const sim = await simulator({ hang: 1 });
    const first = await interrupt(send(sim), () => requestsWith(sim, 'hang') === 3, 2);
    expect(first.code).toBe(130);
    expect(promiseBreaches(first.rows, RECORDS, sim.ledger)).toEqual([]);
    const unknown = first.rows.filter((r) => r.outcome === 'unknown');
    expect(unknown).toHaveLength(3 * BATCH);
    for (const row of unknown) expect(row.error).toMatch(/abort/i);
    expect(countOutcomes(first.rows)).toEqual({ unknown: 3 * BATCH, skipped: RECORDS - 3 * BATCH });

    sim.setFaults({});
    const second = await send(sim, ['--resume']);
    expect(promiseBreaches(second.rows, RECORDS, sim.ledger)).toEqual([]);
    expect(countOutcomes(second.rows)).toEqual({
      unknown: 3 * BATCH,
      accepted: RECORDS - 3 * BATCH,
    });
    expect(sim.ledger).toHaveLength(RECORDS - 3 * BATCH);
  });

  it('a resume whose settled records do not read back from the spool stops; the next one validates again and finishes', async () => {
    const sim = await simulator({ latencyMs: 5 });
    const first = await interrupt(send(sim), () => sim.ledger.length >= 4 * BATCH);
    expect(first.code).toBe(130);
    // A settled record's line in the kept spool, its JSON cut at the end (its length kept): the
    // send's reading passes over it by its row; the reading of what earlier runs settled cannot.
    const spool = folderState(state()).cache.files(CAMPAIGN).spool;
    const text = await readFile(spool, 'utf8');
    const at = text.indexOf('}\n');
    await writeFile(spool, `${text.slice(0, at)}~${text.slice(at + 1)}`);
    const sentBefore = sim.ledger.length;

    const stopped = await send(sim, ['--resume']);
    expect(stopped.code, stopped.stderr).toBe(6);
    expect(stopped.summary?.stoppedReason).toMatch(/does not read back as written/);
    expect(sim.ledger).toHaveLength(RECORDS);
    expect(findDuplicates(sim.ledger)).toEqual([]);
    expect(sim.ledger.length).toBeGreaterThan(sentBefore);

    const finished = await send(sim, ['--resume']);
    expect(finished.code, finished.stderr).toBe(0);
    expect(promiseBreaches(finished.rows, RECORDS, sim.ledger)).toEqual([]);
    expect(countOutcomes(finished.rows)).toEqual({ accepted: RECORDS });
    expect(sim.ledger).toHaveLength(RECORDS);
  });
});

describe('an outage of the gateway mid-run (--outage-grace)', () => {
  /** Requests with messages the simulator answered; probes carry none. */
  const answered = (sim: Simulator) => sim.requests.filter((r) => r.messageCount > 0).length;
  const probes503 = (sim: Simulator) =>
    sim.requests.filter((r) => r.messageCount === 0 && r.outcome === '503').length;

  it('down for a moment: new batches wait, the gateway is probed, the run finishes with nothing twice', async () => {
    const sim = await simulator({});
    const running = send(sim, ['--outage-grace', '30s', '--retries', '0'], 2);
    await waitFor(() => answered(sim) >= 5 || undefined, 'five answered requests', 30_000);
    sim.setFaults({ unavailable: 1 });
    await waitFor(() => probes503(sim) >= 2 || undefined, 'two probes refused', 30_000);
    sim.setFaults({});
    const { rows, code } = await running;
    expect(code).toBe(0);
    expect(promiseBreaches(rows, RECORDS, sim.ledger)).toEqual([]);
    expect(countOutcomes(rows)).toEqual({ accepted: RECORDS });
    expect(findDuplicates(sim.ledger)).toEqual([]);
    expect(sim.ledger).toHaveLength(RECORDS);
  });

  it('down for longer than the grace: the run stops; --resume later finishes it with nothing twice', async () => {
    const sim = await simulator({ latencyMs: 5 });
    const running = send(sim, ['--outage-grace', '1s', '--retries', '0'], 2);
    await waitFor(() => answered(sim) >= 5 || undefined, 'five answered requests', 30_000);
    sim.setFaults({ unavailable: 1 });
    const first = await running;
    expect(first.code).toBe(3);
    expect(first.summary?.stoppedReason).toMatch(/^the gateway stayed unusable for 1s \(HTTP 503/);
    expect(promiseBreaches(first.rows, RECORDS, sim.ledger)).toEqual([]);
    const accepted = first.rows.filter((r) => r.outcome === 'accepted').length;
    expect(accepted).toBe(sim.ledger.length);
    expect(first.rows.filter((r) => r.outcome === 'failed')).toHaveLength(RECORDS - accepted);

    sim.setFaults({});
    const second = await send(sim, ['--resume']);
    expect(second.code).toBe(0);
    expect(countOutcomes(second.rows)).toEqual({ accepted: RECORDS });
    expect(findDuplicates(sim.ledger)).toEqual([]);
    expect(sim.ledger).toHaveLength(RECORDS);
  });
});
