// `sms-send send` and `sms-send retry` in-process against a simulator the test holds, with campaign
// state kept across runs: argv parsed by the real program, then the commands' own core entries.
import { readFile } from 'node:fs/promises';
import { parseIncludes, retryRequest, type RetryFlags } from '../../src/cli/commands/retry.js';
import { refusalError } from '../../src/campaign/refusal.js';
import { campaignRequest } from '../../src/campaign/request.js';
import { flagLayer } from '../../src/cli/gateway-settings.js';
import { buildProgram } from '../../src/cli/program.js';
import { resolveSettings } from '../../src/config/resolve.js';
import { ExitCode, SmsSendError } from '../../src/shared/errors.js';
import { prepareCampaign } from '../../src/campaign/prepare/index.js';
import type { CampaignRequest } from '../../src/campaign/types.js';
import { SendEmitter } from '../../src/send/events.js';
import { planFollowUp, type RetryPlan } from '../../src/campaign/follow-up/index.js';
import type { Simulator } from '../../src/simulator/index.js';
import { parseCsv } from './files.js';
import { parseSendArgs, simulatorClient } from './pipeline.js';

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
  options: { cwd: string; stateDir: string; sim: Simulator },
): Promise<CommandRun> {
  const { sim } = options;
  const before = sim.ledger.length;
  const result: CommandRun = { code: 0, rows: [], messages: [] };
  const full = [...argv, '--endpoint', sim.url];
  try {
    const settingsOf = (flags: RetryFlags) =>
      resolveSettings({
        cwd: options.cwd,
        env: { SMS_SEND_STATE_DIR: options.stateDir },
        flags: flagLayer(flags),
        configPath: flags.config,
      });
    let request: CampaignRequest;
    let inputs: string[];
    if (argv[0] === 'retry') {
      const { campaign, flags } = await parseRetryArgs(full);
      const settings = await settingsOf(flags);
      const plan = await planFollowUp({
        campaign,
        include: parseIncludes(flags.include),
        stateDir: settings.stateDir,
        simulate: flags.simulate === true,
        resume: flags.resume === true,
      });
      result.retry = plan;
      if (!plan.followUp) return result;
      inputs = plan.followUp.inputs.map((i) => i.path);
      request = retryRequest({ ...plan, followUp: plan.followUp }, settings, flags);
    } else {
      const { inputs: files, flags } = await parseSendArgs(full);
      inputs = files;
      request = campaignRequest(files, flags, {
        settings: await settingsOf(flags),
        cwd: options.cwd,
      });
    }
    const prepared = await prepareCampaign(request);
    try {
      result.campaign = prepared.identity.id;
      result.report = prepared.reportPath;
      const problem = refusalError(prepared, inputs);
      if (problem) throw problem;
      if (request.dryRun) return result;
      const client = simulatorClient(sim, request.settings);
      try {
        const sent = await prepared.send({
          poster: client,
          // As the CLI records it: --simulate goes to "simulator", whatever serves it here.
          target: request.simulate ? 'simulator' : sim.url,
          events: new SendEmitter(),
        });
        result.code = sent.exitCode;
      } finally {
        await client.close();
      }
    } finally {
      await prepared.close();
    }
    result.rows = parseCsv(await readFile(result.report, 'utf8')).sort(
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
