// The send command's pipeline in-process, for record-level tests: argv parsed by the real program,
// then the same core entry the command uses (prepareCampaign and its send pass) against an
// in-process simulator. What only a process shows (exit codes, stdout/stderr, stdin, files) stays
// in test/e2e/.
import { mkdtemp, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { Chalk } from 'chalk';
import type { SendFlags } from '../../src/cli/commands/send.js';
import { flagLayer } from '../../src/cli/gateway-settings.js';
import { buildProgram } from '../../src/cli/program.js';
import { planJson, type PlanJson } from '../../src/campaign/documents.js';
import { renderPlan } from '../../src/cli/ui/plan.js';
import { resolveSettings } from '../../src/config/resolve.js';
import { ExitCode, SmsSendError } from '../../src/shared/errors.js';
import { spoolStream, type Spooled } from '../../src/input/stdin.js';
import type { Plan } from '../../src/validate/plan.js';
import type { RunSummary } from '../../src/report/summary.js';
import { refusalError } from '../../src/campaign/refusal.js';
import { campaignRun, inputFiles, loadTemplate } from '../../src/campaign/run.js';
import { planOnly, sendCampaign } from '../../src/campaign/steps/index.js';
import type { PlannedCampaign } from '../../src/campaign/types.js';
import type { WindowClosed } from '../../src/campaign/types.js';
import { SendEmitter } from '../../src/send/events.js';
import type { Clock } from '../../src/shared/clock.js';
import {
  startSimulator,
  type RequestRecord,
  type SimulatorOptions,
} from '../../src/simulator/index.js';
import { parseCsv } from './files.js';

const plain = new Chalk({ level: 0 });

export interface PipelineOptions {
  /** The folder relative input paths, --config and config discovery start from (the CLI's cwd). */
  cwd: string;
  /** Where this run's report and campaign state go; a fresh folder is made inside it. */
  workDir: string;
  /** Standard input, for an input named "-". */
  stdin?: string;
  simulator?: SimulatorOptions;
  /** Wall time for the send window (a FakeClock), instead of the system's. */
  clock?: Clock;
  /** Sees the send's events before it starts, e.g. to move a fake clock after some batches. */
  onEvents?: (events: SendEmitter) => void;
  /** Runs between the validation and the send, where the command asks for confirmation. */
  beforeSend?: () => void | Promise<void>;
}

export interface PipelineRun {
  /** The exit code the CLI gives for this outcome (2 when refused before sending). */
  code: number;
  /** What the CLI prints after "sms-send: " when it refuses (exit 2). */
  error?: string;
  /** The validation pass, when it ran to the end. */
  plan?: Plan;
  /** The `plan` of the --dry-run --json document. */
  planJson?: PlanJson;
  /** The --dry-run plan as printed on a terminal (without colour). */
  planText?: string;
  /** The request items the simulator accepted, exactly as received. */
  messages: Record<string, unknown>[];
  /** Every HTTP request the simulator received. */
  requests: readonly RequestRecord[];
  /** Report rows ordered by campaign row; empty when nothing was sent. */
  rows: Record<string, string>[];
  report: string;
  /** Set when the send window closed before every record was sent (exit 5). */
  windowClosed?: WindowClosed;
  /** The run's summary, when it sent. */
  summary?: RunSummary;
}

let runs = 0;

/** Parses `argv` as `sms-send` does and returns the send command's inputs and flags. */
export async function parseSendArgs(
  argv: string[],
): Promise<{ inputs: string[]; flags: SendFlags }> {
  const program = buildProgram(
    { exitCode: ExitCode.ok, invocation: { program: 'sms-send', args: [] } },
    '0.0.0-test',
  );
  let parsed: { inputs: string[]; flags: SendFlags } | undefined;
  program.commands
    .find((command) => command.name() === 'send')!
    .action((inputs: string[], flags: SendFlags) => {
      parsed = { inputs, flags };
    });
  await program.parseAsync(argv, { from: 'user' });
  if (!parsed) throw new Error(`not a send command line: ${argv.join(' ')}`);
  return parsed;
}

/**
 * Runs `sms-send ARGV --endpoint <simulator> --report <fresh>` in-process through the command's
 * own core entry, with campaign state in a folder of the run's own.
 */
/** The validation worker as the package ships it: a thread cannot load the TypeScript sources. */
export const VALIDATION_WORKER = new URL('../../dist/validate/worker.js', import.meta.url);

export async function runPipeline(argv: string[], options: PipelineOptions): Promise<PipelineRun> {
  const sim = await startSimulator(options.simulator);
  const work = await mkdtemp(join(options.workDir, `run-${++runs}-`));
  const report = join(work, 'report.csv');
  const result: PipelineRun = { code: 0, messages: [], requests: [], rows: [], report };
  let stdin: Spooled | undefined;
  try {
    const { inputs, flags } = await parseSendArgs([
      ...argv,
      '--endpoint',
      sim.url,
      '--report',
      report,
    ]);
    const settings = await resolveSettings({
      cwd: options.cwd,
      env: { SMS_SEND_STATE_DIR: join(work, 'state'), ...CREDENTIALS },
      flags: flagLayer(flags),
      configPath: flags.config === undefined ? undefined : resolve(options.cwd, flags.config),
      profile: flags.profile,
    });
    const textFile =
      flags.textFile === undefined ? undefined : resolve(options.cwd, flags.textFile);
    if (inputs.includes('-')) stdin = await spoolStream(Readable.from([options.stdin ?? '']));
    const events = new SendEmitter();
    options.onEvents?.(events);
    // The command's own run, with the run's own report and inputs found from the test's folder.
    const run = campaignRun({
      inputs: inputFiles(inputs, { stdinPath: stdin?.path, cwd: options.cwd }),
      settings,
      choices: { ...flags, report: resolve(options.cwd, flags.report!) },
      template: await loadTemplate(flags.text, textFile),
      // Large inputs are validated by worker threads, which run the built module (npm test builds).
      workers: { worker: { url: VALIDATION_WORKER } },
      // The run's time is the test's clock when it brings one.
      io: { events, ...(options.clock ? { clock: options.clock } : {}) },
    });
    const planned = (campaign: PlannedCampaign) => {
      result.plan = campaign.plan;
      result.planJson = planJson(campaign.plan, campaign.identity.id).plan;
      result.planText = renderPlan(campaign.plan, plain);
    };
    if (flags.dryRun) {
      const campaign = await planOnly(run);
      planned(campaign);
      const problem = refusalError(campaign, inputs);
      if (problem) throw problem;
      return result;
    }
    // The one path to the gateway, as the command takes it; the test stands where it asks.
    const sent = await sendCampaign(run, { planned, confirm: () => options.beforeSend?.() });
    result.code = sent.result.exitCode;
    result.windowClosed = sent.result.windowClosed;
    result.summary = sent.result.summary;
    const rows = parseCsv(await readFile(report, 'utf8'));
    result.rows = rows.sort((a, b) => Number(a.row) - Number(b.row));
    return result;
  } catch (error) {
    if (!(error instanceof SmsSendError)) throw error;
    result.code = error.exitCode;
    result.error = error.message;
    return result;
  } finally {
    await stdin?.remove();
    await sim.stop();
    result.messages = sim.ledger.map((entry) => entry.message);
    result.requests = sim.requests;
  }
}

/** The credentials the pipeline's runs give the simulator. */
const CREDENTIALS = { SMS_SEND_USERNAME: 'tester', SMS_SEND_PASSWORD: 'not-a-secret' };
