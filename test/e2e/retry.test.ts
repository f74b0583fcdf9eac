// `sms-send retry` as a user meets it: the warning before re-sending unknown records, the summary
// and the exit code. The campaign it follows up is sent in-process; test/pipeline/retry.test.ts
// covers which records are chosen and the refusals. The simulator's ledger is the witness.
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';
import { runCli } from '../helpers/cli.js';
import { tempDir, writeCampaignCsv } from '../helpers/files.js';
import { runCommand } from '../helpers/follow-up.js';

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

it('warns before re-sending unknown records, and sends them once', async () => {
  await writeCampaignCsv(join(dir.path, 'campaign.csv'), 16);
  const original = await runCommand(
    [
      'campaign.csv',
      '--batch-size',
      '2',
      '--concurrency',
      '1',
      '--report',
      join(dir.path, 'campaign.report.csv'),
    ],
    { cwd: dir.path, stateDir: process.env.SMS_SEND_STATE_DIR!, sim },
  );
  const again = original.rows.filter((r) => r.outcome === 'rejected' || r.outcome === 'unknown');
  expect(original.rows.some((r) => r.outcome === 'unknown')).toBe(true);
  expect(original.rows.some((r) => r.outcome === 'rejected')).toBe(true);
  sim.setFaults({});
  const before = sim.ledger.length;

  const argv = ['retry', original.campaign!, '--include', 'unknown', '--endpoint', sim.url];
  const retry = await runCli(argv, { cwd: dir.path, env: ENV });
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
