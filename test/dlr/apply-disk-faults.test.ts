// `dlr apply` whose Nth write or sync fails, for every N, on a disk that stays full and on one that
// fails once: it changes nothing half-way and says so; run again once there is room, it folds every
// delivery report in, and the rows they confirm are accepted in the report and in the campaign's
// journal alike (docs/campaign-state.md#when-the-disk-fails). How each errno is worded is the
// send's matrix's business (test/pipeline/disk-faults.test.ts): here only staying or passing matters.
import { cp, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { send, startSimulator, type Simulator } from '../../src/index.js';
import { readJournalFile } from '../../src/journal/reading.js';
import { campaignPaths } from '../../src/journal/folder/campaigns.js';
import { injectDiskFault, type DiskOp } from '../../src/shared/disk.js';
import { memoryDir, parseCsv, writeCampaignCsv } from '../helpers/files.js';
import { proofMaker } from '../helpers/dlr-proof.js';
import { runInProcess } from '../helpers/in-process.js';
import { PROOF_PARAM } from '../../src/shared/dlr-proof.js';

const ERRNOS: [code: string, sticky: boolean][] = [
  ['ENOSPC', true],
  ['EIO', false],
];

let sim: Simulator;
let dir: { path: string; remove: () => Promise<void> };
let state: string;
let report: string;
let log: string;
let campaign: string;
/** The rows the send left unknown: the delivery reports confirm them. */
let unknown: string[];
let operations: number;

beforeAll(async () => {
  dir = await memoryDir();
  // Some batches are processed and then answered 500: their records are unknown.
  sim = await startSimulator({ faults: { errorAfterProcessing: 0.5 }, seed: 3 });
  const input = join(dir.path, 'c.csv');
  await writeCampaignCsv(input, 12);
  state = join(dir.path, 'state');
  report = join(dir.path, 'c.report.csv');
  const settings = { endpoint: sim.url, username: 'u', password: 'p', stateDir: state };
  const sent = await send({
    inputs: [input],
    settings: { ...settings, batchSize: 3, concurrency: 1, retries: 0, outageGrace: 0 },
    report,
  }).catch((error: { document: { summary: { campaign: string } } }) => error.document);
  campaign = sent.summary.campaign;
  const rows = parseCsv(await readFile(report, 'utf8'));
  unknown = rows.filter((r) => r.outcome === 'unknown').map((r) => r.row!);
  log = join(dir.path, 'dlr.ndjson');
  // Signed as the gateway carries them: the campaign's URLs held these proofs.
  const proof = await proofMaker(state, campaign);
  const line = (messageId: string) =>
    JSON.stringify({
      receivedAt: '2026-11-27T12:00:00.000Z',
      method: 'GET',
      path: '/',
      messageId,
      status: 'DELIVRD',
      params: { [PROOF_PARAM]: proof(messageId) },
    });
  await writeFile(log, `${rows.map((r) => line(r.messageId!)).join('\n')}\n`);
  await cp(state, `${state}.kept`, { recursive: true });
  await cp(report, `${report}.kept`);
  let count = 0;
  injectDiskFault(() => {
    count++;
    return undefined;
  });
  try {
    await apply();
  } finally {
    injectDiskFault(undefined);
  }
  operations = count;
});

afterAll(async () => {
  injectDiskFault(undefined);
  await sim.stop();
  await dir.remove();
});

function apply() {
  return runInProcess(['dlr', 'apply', '--report', report, '--from', log], {
    env: { SMS_SEND_STATE_DIR: state },
  });
}

/** The campaign and its report as the send left them. */
async function restore(): Promise<void> {
  await rm(state, { recursive: true, force: true });
  await cp(`${state}.kept`, state, { recursive: true });
  await cp(`${report}.kept`, report);
}

describe('dlr apply on a disk that fails, for every N', () => {
  it('a send left unknown rows for the delivery reports to confirm', () => {
    expect(unknown.length).toBeGreaterThan(0);
    expect(operations).toBeGreaterThan(10);
  });

  it.each(ERRNOS)(
    '%s: never half done; run again, every report is folded in and recorded',
    async (code, sticky) => {
      for (let n = 1; n <= operations; n++) {
        await restore();
        let count = 0;
        injectDiskFault((op: DiskOp) => {
          count++;
          if (count < n || (!sticky && count > n)) return undefined;
          return {
            error: Object.assign(new Error(`${code}: failed, ${op}`), { code }),
            written: 5,
          };
        });
        const first = await apply().finally(() => injectDiskFault(undefined));
        const context = `${code} at ${n}: ${first.stderr}`;
        // A refusal or a report that is behind, never an internal error.
        expect([0, 1, 2], context).toContain(first.code);
        const again = await apply();
        expect(again.code, `${context}\nagain: ${again.stderr}`).toBe(0);
        const rows = parseCsv(await readFile(report, 'utf8'));
        expect(
          rows.map((r) => r.deliveryStatus),
          context,
        ).toEqual(rows.map(() => 'DELIVRD'));
        expect(
          rows.filter((r) => r.outcome !== 'accepted'),
          context,
        ).toEqual([]);
        const journal = await readJournalFile(campaignPaths(state, campaign).journal);
        for (const row of unknown) {
          expect(journal?.results.outcome(Number(row)), `${context} row ${row}`).toBe('accepted');
        }
      }
    },
  );
});
