// `sms-send dlr apply` and `sms-send retry` as a user meets them: a delivery report settles an
// unknown row (report and campaign state), then a retry warns before re-sending the other unknown
// records and re-sends them and the rejected ones once. The campaign is sent in-process;
// test/pipeline/retry.test.ts covers which records are chosen and the refusals. The simulator's
// ledger is the witness.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { findCampaign } from '../../src/journal/lookup.js';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';
import { runInProcess } from '../helpers/in-process.js';
import { proofMaker } from '../helpers/dlr-proof.js';
import { parseCsv, tempDir, writeCampaignCsv } from '../helpers/files.js';
import { runCommand } from '../helpers/follow-up.js';
import { folderStore } from '../helpers/state.js';

const ENV = { SMS_SEND_USERNAME: 'retry-user', SMS_SEND_PASSWORD: 'retry-pw' };

let dir: Awaited<ReturnType<typeof tempDir>>;
let sim: Simulator;

beforeEach(async () => {
  dir = await tempDir();
  sim = await startSimulator({
    seed: 5,
    faults: { rejectMessage: 0.3, errorAfterProcessing: 0.3 },
  });
});
afterEach(async () => {
  await sim.stop();
  await dir.remove();
});

it('dlr apply settles an unknown row; retry warns, and re-sends the other unknown and the rejected records once', async () => {
  await writeCampaignCsv(join(dir.path, 'campaign.csv'), 16);
  const report = join(dir.path, 'campaign.report.csv');
  const stateDir = process.env.SMS_SEND_STATE_DIR!;
  const original = await runCommand(
    ['campaign.csv', '--batch-size', '2', '--concurrency', '1', '--report', report],
    { cwd: dir.path, stateDir, sim },
  );
  const unknown = original.rows.filter((r) => r.outcome === 'unknown');
  const rejected = original.rows.filter((r) => r.outcome === 'rejected');
  expect(unknown.length).toBeGreaterThan(1);
  expect(rejected.length).toBeGreaterThan(0);

  // A delivery report for the first unknown row: it reached the gateway.
  const [confirmed, ...stillUnknown] = unknown;
  const log = join(dir.path, 'dlr.ndjson');
  // As the gateway makes it: with the proof the message's DeliveryReportUrl carried.
  const proof = await proofMaker(stateDir, original.campaign);
  await writeFile(
    log,
    `${JSON.stringify({ msgid: confirmed!.messageId, status: 'DELIVRD', smsig: proof(confirmed!.messageId!) })}\n`,
  );
  const apply = await runInProcess(['dlr', 'apply', '--report', report, '--from', log], {
    cwd: dir.path,
  });
  expect(apply.code).toBe(0);
  expect(apply.stdout).toMatch(/confirmed +1 +unknown rows now accepted/);
  const row = parseCsv(await readFile(report, 'utf8')).find((r) => r.row === confirmed!.row);
  expect([row?.outcome, row?.statusDescription]).toEqual([
    'accepted',
    'confirmed by delivery report',
  ]);
  // The campaign's state agrees.
  expect(
    (await findCampaign(folderStore(stateDir), original.campaign!)).manifest.counts,
  ).toMatchObject({
    accepted: original.rows.length - unknown.length - rejected.length + 1,
    unknown: unknown.length - 1,
  });

  sim.setFaults({});
  const before = sim.ledger.length;
  const again = [...rejected, ...stillUnknown];
  const retry = await runInProcess(
    ['retry', original.campaign!, '--include', 'unknown', '--endpoint', sim.url],
    { cwd: dir.path, env: ENV },
  );
  expect(retry.stderr).toContain(`follow-up of campaign ${original.campaign}:`);
  expect(retry.stderr).toMatch(
    /warning: \d+ unknown records? will be re-sent: .* may arrive twice/,
  );
  expect(retry.stdout).toContain(`${again.length} of ${again.length} messages accepted`);
  expect(retry.code).toBe(0);
  expect(
    sim.ledger
      .slice(before)
      .map((e) => String(e.message['DestinationAddress']))
      .sort(),
  ).toEqual(again.map((r) => r.to).sort());
});
