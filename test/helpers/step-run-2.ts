// A campaign's run as the send command builds it, for tests that take its steps one at a time:
// the command line parsed by the real program, the settings resolved, the state in the test's folder.
import { resolve } from 'node:path';
import { flagLayer } from '../../src/cli/gateway-settings.js';
import { resolveSettings } from '../../src/config/resolve.js';
import { closeState } from '../../src/journal/open-store.js';
import { campaignRun, inputFiles, loadTemplate, type CampaignRun } from '../../src/campaign/run.js';
import { claim } from '../../src/campaign/steps/claim.js';
import type { RunHold } from '../../src/campaign/steps/hold.js';
import { identify, type Identified } from '../../src/campaign/steps/identify.js';
import { readSettled, type Settled } from '../../src/campaign/steps/settled.js';
import { SendEmitter } from '../../src/send/events.js';
import type { Clock } from '../../src/shared/clock.js';
import { parseSendArgs } from './pipeline.js';

export interface StepRunOptions {
  /** Where relative inputs and the report are found from. */
  cwd: string;
  stateDir: string;
  clock?: Clock;
  stop?: AbortSignal;
  /** The gateway, for a run the test lets send; by default a loopback port nothing listens on. */
  endpoint?: string;
}

/** `sms-send ARGV` as a CampaignRun (a step before the send never reaches its gateway). */
export async function stepRun(argv: string[], options: StepRunOptions): Promise<CampaignRun> {
  const { inputs, flags } = await parseSendArgs([
    ...argv,
    '--endpoint',
    options.endpoint ?? 'http://127.0.0.1:9',
  ]);
  const settings = await resolveSettings({
    cwd: options.cwd,
    env: {
      SMS_SEND_STATE_DIR: options.stateDir,
      SMS_SEND_USERNAME: 'tester',
      SMS_SEND_PASSWORD: 'not-a-secret',
    },
    flags: flagLayer(flags),
  });
  const report = resolve(options.cwd, flags.report ?? 'report.csv');
  return campaignRun({
    inputs: inputFiles(inputs, { cwd: options.cwd }),
    settings,
    choices: { ...flags, report },
    template: await loadTemplate(flags.text, undefined),
    io: {
      events: new SendEmitter(),
      ...(options.clock ? { clock: options.clock } : {}),
      ...(options.stop ? { stop: options.stop } : {}),
    },
  });
}

/** The steps before validation, as a real run takes them: identified, claimed, settled read. */
export interface Claimed {
  identified: Identified;
  hold: RunHold;
  settled: Settled;
}

/** Takes the run's first steps, gives them to `use`, then lets the campaign and its state go. */
export async function withClaim<T>(
  run: CampaignRun,
  use: (claimed: Claimed) => Promise<T>,
): Promise<T> {
  try {
    const identified = await identify(run);
    const hold = await claim(run, identified);
    try {
      return await use({ identified, hold, settled: await readSettled(run, identified, hold) });
    } finally {
      await hold.close();
    }
  } finally {
    await closeState(run);
  }
}
