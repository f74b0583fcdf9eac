// `sms-send send` and `sms-send retry` in-process against a simulator the test holds, with campaign
// state kept across runs: argv parsed by the real program, then the commands' own core entries.
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { campaignPage } from '../../src/report/html/campaign-page.js';
import { startSimulator } from '../../src/simulator/index.js';
import { parseIncludes, type RetryFlags } from '../../src/cli/commands/retry.js';
import { refusalError } from '../../src/campaign/refusal.js';
import { campaignRun, inputFiles, type CampaignRun } from '../../src/campaign/run.js';
import { flagLayer } from '../../src/cli/gateway-settings.js';
import { buildProgram } from '../../src/cli/program.js';
import { resolveSettings } from '../../src/config/resolve.js';
import { ExitCode, SmsSendError } from '../../src/shared/errors.js';
import { planOnly, sendCampaign } from '../../src/campaign/steps/index.js';
import type { PlannedCampaign } from '../../src/campaign/types.js';
import { followUpRun, planFollowUp, type RetryPlan } from '../../src/campaign/follow-up/index.js';
import type { Simulator, SimulatorOptions } from '../../src/simulator/index.js';
import { parseCsv, tempDir } from './files.js';
import { parseSendArgs } from './pipeline.js';
import { closeState, openState } from '../../src/journal/open-store.js';
import { folderState } from './state.js';

export interface CommandRun {
  code: number;
  /** What the CLI prints after "sms-send: " when it refuses. */
  error?: string;
  campaign?: string;
  report?: string;
  /** Report rows ordered by row. */
  rows: Record<string, string>[];
  /** What the simulator accepted during this run, exactly as received. */
  messages: Record<string, unknown>[];
  /** retry only: the records it chose. */
  retry?: RetryPlan;
}

async function parseRetryArgs(argv: string[]): Promise<{ campaign: string; flags: RetryFlags }> {
  const program = buildProgram(
    { exitCode: ExitCode.ok, invocation: { program: 'sms-send', args: [] } },
    '0.0.0-test',
  );
  let parsed: { campaign: string; flags: RetryFlags } | undefined;
  program.commands
    .find((command) => command.name() === 'retry')!
    .action((campaign: string, flags: RetryFlags) => {
      parsed = { campaign, flags };
    });
  await program.parseAsync(argv, { from: 'user' });
  if (!parsed) throw new Error(`not a retry command line: ${argv.join(' ')}`);
  return parsed;
}

/**
 * Runs `sms-send ARGV --endpoint <sim>` (send, or retry when argv starts with "retry") in-process,
 * with campaign state in `stateDir`.
 */
export async function runCommand(
  argv: string[],
  options: {
    cwd: string;
    stateDir: string;
    sim: Simulator;
    /** With --simulate: the built-in simulator's options (the messages go there, not to `sim`). */
    simulator?: SimulatorOptions;
  },
): Promise<CommandRun> {
  const { sim } = options;
  const before = sim.ledger.length;
  const result: CommandRun = { code: 0, rows: [], messages: [] };
  const full = [...argv, '--endpoint', sim.url];
  try {
    const settingsOf = (flags: RetryFlags) =>
      resolveSettings({
        cwd: options.cwd,
        env: { SMS_SEND_STATE_DIR: options.stateDir, ...CREDENTIALS },
        flags: flagLayer(flags),
        configPath: flags.config,
      });
    let run: CampaignRun;
    if (argv[0] === 'retry') {
      const { campaign, flags } = await parseRetryArgs(full);
      const settings = await settingsOf(flags);
      const plan = await planFollowUp({
        campaign,
        include: parseIncludes(flags.include),
        store: openState(settings).store,
        simulate: flags.simulate === true,
        resume: flags.resume === true,
      });
      result.retry = plan;
      if (!plan.followUp) return result;
      run = followUpRun(plan.followUp, plan.report, {
        settings,
        choices: {
          simulate: flags.simulate,
          report: flags.report,
          force: flags.force,
          resume: flags.resume === true || plan.resume === true,
          dryRun: flags.dryRun,
          wait: flags.wait,
        },
        simulator: options.simulator,
      });
    } else {
      const { inputs, flags } = await parseSendArgs(full);
      run = campaignRun({
        inputs: inputFiles(inputs, { cwd: options.cwd }),
        settings: await settingsOf(flags),
        choices: {
          ...flags,
          ...(flags.report === undefined ? {} : { report: resolve(options.cwd, flags.report) }),
        },
        simulator: options.simulator,
      });
    }
    const keep = (campaign: PlannedCampaign) => {
      result.campaign = campaign.identity.id;
      result.report = campaign.reportPath;
    };
    if (run.choices.dryRun) {
      const campaign = await planOnly(run);
      keep(campaign);
      const problem = refusalError(
        campaign,
        run.inputs.map((input) => input.label),
      );
      if (problem) throw problem;
      return result;
    }
    const sent = await sendCampaign(run, { planned: keep });
    result.code = sent.result.exitCode;
    result.rows = parseCsv(await readFile(result.report!, 'utf8')).sort(
      (a, b) => Number(a.row) - Number(b.row),
    );
    return result;
  } catch (error) {
    if (!(error instanceof SmsSendError)) throw error;
    result.code = error.exitCode;
    result.error = error.message;
    return result;
  } finally {
    result.messages = sim.ledger.slice(before).map((entry) => entry.message);
  }
}

/** The credentials these runs give the simulator. */
const CREDENTIALS = { SMS_SEND_USERNAME: 'tester', SMS_SEND_PASSWORD: 'not-a-secret' };

/**
 * Each test its own folder, state directory and seeded simulator, started before it and stopped
 * after it: `run` sends or retries there in-process, `page` draws a campaign's page from there.
 */
export function campaignsPerTest(seed: number) {
  const held: { dir?: { path: string; remove(): Promise<void> }; sim?: Simulator } = {};
  beforeEach(async () => {
    held.dir = await tempDir();
    held.sim = await startSimulator({ seed });
  });
  afterEach(async () => {
    await held.sim?.stop();
    await held.dir?.remove();
  });
  const here = {
    get dir() {
      return held.dir!.path;
    },
    get stateDir() {
      return join(held.dir!.path, 'state');
    },
    get sim() {
      return held.sim!;
    },
    run: (argv: string[]) =>
      runCommand(argv, { cwd: here.dir, stateDir: here.stateDir, sim: here.sim }),
    async page(what: string, name = 'sms-send') {
      const state = folderState(here.stateDir);
      try {
        return await campaignPage({ what, state, program: { name, carry: [] }, now: 0 });
      } finally {
        await closeState(state);
      }
    },
  };
  return here;
}
