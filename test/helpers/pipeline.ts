// The send command's pipeline in-process, for record-level tests: argv parsed by the real program,
// settings → identity → plan → spool → runCampaign against an in-process simulator. What only a
// process shows (exit codes, stdout/stderr, stdin, files) stays in test/e2e/.
import { mkdtemp, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { buildProgram } from '../../src/cli/program.js';
import { flagLayer } from '../../src/cli/gateway-settings.js';
import type { SendFlags } from '../../src/cli/commands/send.js';
import { planJson } from '../../src/cli/ui/json.js';
import { plain } from '../../src/cli/ui/color.js';
import { renderInvalid, renderPlan } from '../../src/cli/ui/plan.js';
import { resolveSettings } from '../../src/config/resolve.js';
import { SmsSendError, UsageError } from '../../src/errors.js';
import { GatewayClient } from '../../src/gateway/client.js';
import { spoolStream, type Spooled } from '../../src/input/stdin.js';
import { campaignIdentity, contentHash, hashFile } from '../../src/journal/identity.js';
import { readCampaign } from '../../src/message/campaign.js';
import { checkDefaults } from '../../src/message/defaults.js';
import { planCampaign, type Plan } from '../../src/message/plan.js';
import { compileTemplate } from '../../src/message/template.js';
import { Tally } from '../../src/report/summary.js';
import { entryOf } from '../../src/send/entries.js';
import { SendEmitter } from '../../src/send/events.js';
import { runCampaign } from '../../src/send/run.js';
import { readSpool, SpoolWriter } from '../../src/send/spool.js';
import {
  startSimulator,
  type RequestRecord,
  type SimulatorOptions,
} from '../../src/simulator/index.js';
import { parseCsv } from './files.js';

export interface PipelineOptions {
  /** The folder relative input paths, --config and config discovery start from (the CLI's cwd). */
  cwd: string;
  /** Where this run's report, journal and spool go; a fresh folder is made inside it. */
  workDir: string;
  /** Standard input, for an input named "-". */
  stdin?: string;
  simulator?: SimulatorOptions;
}

export interface PipelineRun {
  /** The exit code the CLI gives for this outcome (2 when refused before sending). */
  code: number;
  /** What the CLI prints after "sms-send: " when it refuses (exit 2). */
  error?: string;
  /** The validation pass, when it ran to the end. */
  plan?: Plan;
  /** The `plan` of the --dry-run --json document. */
  planJson?: Record<string, unknown>;
  /** The --dry-run plan as printed on a terminal (without colour). */
  planText?: string;
  /** The request items the simulator accepted, exactly as received. */
  messages: Record<string, unknown>[];
  /** Every HTTP request the simulator received. */
  requests: readonly RequestRecord[];
  /** Report rows ordered by campaign row; empty when nothing was sent. */
  rows: Record<string, string>[];
  report: string;
}

let runs = 0;

/** Parses `argv` as `sms-send` does and returns the send command's inputs and flags. */
export async function parseSendArgs(
  argv: string[],
): Promise<{ inputs: string[]; flags: SendFlags }> {
  const state = { exitCode: 0, json: false };
  const program = buildProgram(state, '0.0.0-test');
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
 * Runs `sms-send ARGV --endpoint <simulator> --report <fresh>` in-process: the same core calls in
 * the same order as src/cli/commands/send.ts, without the campaign state folder (claim and lock
 * are e2e matters), with the journal and spool in a folder of the run's own.
 */
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
      env: {},
      flags: flagLayer(flags),
      configPath: flags.config === undefined ? undefined : resolve(options.cwd, flags.config),
      profile: flags.profile,
    });
    const now = new Date();
    const problems = checkDefaults(settings.defaults, now);
    if (problems.length > 0) {
      // The CLI's wording names each flag or config key; test/e2e/input.test.ts checks it.
      throw new UsageError(`message defaults have problems: ${JSON.stringify(problems)}`);
    }
    if (inputs.includes('-')) stdin = await spoolStream(Readable.from([options.stdin ?? '']));
    const files = inputs.map((input) => ({
      path: input === '-' ? stdin!.path : resolve(options.cwd, input),
      label: input,
    }));
    // --text-file is read by the send command itself; test/e2e/input.test.ts covers it.
    if (flags.textFile !== undefined) throw new Error('--text-file is not run in-process');
    const template = flags.text;
    const hashes = [];
    for (const file of files) hashes.push(await hashFile(file.path));
    const identity = campaignIdentity(
      contentHash(hashes, {
        target: 'gateway',
        mapping: flags.map ?? {},
        template,
        inputFormat: flags.inputFormat,
        delimiter: flags.delimiter,
        country: settings.country,
        defaults: settings.defaults,
      }),
    );

    const spool = flags.dryRun ? undefined : await SpoolWriter.create(join(work, 'spool'));
    let plan: Plan;
    try {
      plan = await planCampaign(
        readCampaign({
          files,
          inputFormat: flags.inputFormat,
          delimiter: flags.delimiter,
          mapping: flags.map ?? {},
          template: template === undefined ? undefined : compileTemplate(template),
          defaults: settings.defaults,
          country: settings.country,
          campaignKey: identity.stem,
          now,
          limit: flags.limit,
          dedupe: flags.dedupe,
        }),
        settings.batchSize,
        spool && ((record) => spool.add(entryOf(record))),
      );
    } finally {
      await spool?.close();
    }
    result.plan = plan;
    result.planJson = planJson(plan, identity.id).plan as Record<string, unknown>;
    result.planText = renderPlan(plan, plain);
    if (plan.fileProblems.length > 0 || (plan.invalid > 0 && !flags.skipInvalid)) {
      throw new UsageError(renderInvalid(plan, true));
    }
    if (plan.records === 0) {
      throw new UsageError(`${inputs.join(', ')}: no records to send`);
    }
    if (!spool) return result;

    const client = new GatewayClient({
      endpoint: sim.url,
      username: 'tester',
      password: 'not-a-secret',
      connections: settings.concurrency,
      timeoutMs: settings.timeoutMs,
    });
    const tally = new Tally();
    const events = new SendEmitter();
    events.on('record', (row, earlier) => tally.add(row, earlier));
    try {
      const sent = await runCampaign(
        {
          entries: readSpool(spool.path),
          reportPath: report,
          journalPath: join(work, 'journal'),
          contentHash: identity.contentHash,
          overwriteReport: false,
          retryUnknown: false,
          poster: client,
          batchSize: settings.batchSize,
          concurrency: settings.concurrency,
          retries: settings.retries,
          rate: settings.rate,
        },
        events,
      );
      const { exitCode } = tally.summary(report);
      result.code = sent.stopped ? 3 : sent.interrupted ? 130 : exitCode;
    } finally {
      await client.close();
    }
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
