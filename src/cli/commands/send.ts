// `sms-send send`: settings → plan (validation pass) → confirm → send pass → report and summary.
import { readFile } from 'node:fs/promises';
import { basename, dirname, extname, join, resolve as resolvePath } from 'node:path';
import { createInterface } from 'node:readline/promises';
import type { Settings } from '../../config/settings.js';
import { GatewayUnusableError, InterruptedError, UsageError } from '../../errors.js';
import { exists } from '../../exists.js';
import type { Outcome } from '../../gateway/outcome.js';
import type { InputFile } from '../../input/open.js';
import { spoolStream } from '../../input/stdin.js';
import { claimCampaign, type Claim } from '../../journal/claim.js';
import {
  campaignIdentity,
  contentHash,
  expandCampaignName,
  expandPlaceholders,
  hashFile,
  type CampaignIdentity,
} from '../../journal/identity.js';
import { acquireLock, lockPath } from '../../journal/lock.js';
import { MANIFEST_VERSION, type Manifest } from '../../journal/state.js';
import { readCampaign, type CampaignOptions } from '../../message/campaign.js';
import { planCampaign } from '../../message/plan.js';
import { compileTemplate, type Template } from '../../message/template.js';
import { OUTCOMES, Tally } from '../../report/summary.js';
import { reportExistsError, reportFormat } from '../../report/writer.js';
import { entryOf } from '../../send/entries.js';
import { SendEmitter } from '../../send/events.js';
import { settledRows } from '../../send/resume.js';
import { runCampaign } from '../../send/run.js';
import { readSpool, SpoolWriter } from '../../send/spool.js';
import { gatewayTarget, openGateway, settingsFor, type GatewayFlags } from '../gateway-settings.js';
import { colorFor } from '../ui/color.js';
import { planJson, summaryJson } from '../ui/json.js';
import { renderInvalid, renderPlan } from '../ui/plan.js';
import { showProgress } from '../ui/progress.js';
import { watchSignals } from '../ui/signals.js';
import { renderSummary } from '../ui/summary.js';

const CONFIRM_ABOVE = 1000;

export interface SendFlags extends GatewayFlags {
  report?: string;
  force?: boolean;
  dryRun?: boolean;
  yes?: boolean;
  skipInvalid?: boolean;
  limit?: number;
  dedupe?: boolean;
  json?: boolean;
  resume?: boolean;
  retryUnknown?: boolean;
  quiet?: boolean;
  verbose?: boolean;
  progressInterval?: number;
  text?: string;
  textFile?: string;
  map?: { to?: string; text?: string };
  inputFormat?: string;
  delimiter?: string;
}

export async function runSend(inputs: string[], flags: SendFlags): Promise<number> {
  if (flags.force && flags.resume)
    throw new UsageError('--force and --resume contradict each other');
  const settings = await settingsFor(flags, inputs);
  const now = new Date();
  // Standard input is read more than once (identity, validation, send): it is spooled first.
  const stdin = inputs.includes('-') ? await spoolStream(process.stdin) : undefined;
  try {
    const files = inputs.map((input) => ({
      path: input === '-' ? stdin!.path : input,
      label: input,
    }));
    const template = await loadTemplate(flags);
    const inputHashes = await hashInputs(files);
    const identity = campaignIdentity(
      contentHash(inputHashes, {
        target: flags.simulate ? 'simulator' : 'gateway',
        mapping: flags.map ?? {},
        template: template?.source,
        inputFormat: flags.inputFormat,
        delimiter: flags.delimiter,
        country: settings.country,
        defaults: settings.defaults,
      }),
      settings.campaign === undefined
        ? undefined
        : expandCampaignName(settings.campaign, inputs[0]!, now),
    );
    const reportPath = expandReportPath(flags.report, inputs[0]!, now, identity.id);
    reportFormat(reportPath);
    if (!(await exists(dirname(reportPath) || '.'))) {
      throw new UsageError(
        `cannot write the report ${reportPath}: the folder ${dirname(reportPath)} does not exist`,
      );
    }
    const context: CampaignContext = {
      files,
      inputs: files.map((f, i) => ({ path: absolute(f.label), ...inputHashes[i]! })),
      identity,
      reportPath,
      template: template?.compiled,
      now,
    };
    if (flags.dryRun) return await sendCampaign(context, settings, flags, undefined);

    // The campaign's state decides before anything is sent: exit 4 while another run holds it,
    // exit 2 when it was sent or is unfinished (unless --force or --resume).
    const claim = await claimCampaign({
      stateDir: settings.stateDir,
      identity,
      force: flags.force === true,
      resume: flags.resume === true,
    });
    try {
      // The report's own lock keeps a delivery-report fold from rewriting it under this run.
      const reportLock = await acquireLock(
        lockPath(reportPath),
        `writing the report ${reportPath}`,
      );
      try {
        if (!flags.force && !flags.resume && (await exists(reportPath))) {
          throw reportExistsError(reportPath);
        }
        return await sendCampaign(context, settings, flags, claim);
      } finally {
        await reportLock.release();
      }
    } finally {
      await claim.release();
    }
  } finally {
    await stdin?.remove();
  }
}

interface CampaignContext {
  files: InputFile[];
  inputs: Manifest['inputs'];
  identity: CampaignIdentity;
  reportPath: string;
  template?: Template;
  now: Date;
}

async function sendCampaign(
  context: CampaignContext,
  settings: Settings,
  flags: SendFlags,
  claim: Claim | undefined,
): Promise<number> {
  const out = colorFor('stdout');
  const err = colorFor('stderr');
  const { files, reportPath, identity } = context;
  const campaignOptions: CampaignOptions = {
    files,
    inputFormat: flags.inputFormat,
    delimiter: flags.delimiter,
    mapping: flags.map ?? {},
    template: context.template,
    defaults: settings.defaults,
    country: settings.country,
    campaignKey: identity.stem,
    now: context.now,
    limit: flags.limit,
    dedupe: flags.dedupe,
  };

  // On --resume only what an earlier run did not settle is left to send, and counted as such.
  const settled = claim?.journal
    ? settledRows(claim.journal, flags.retryUnknown === true)
    : () => false;
  let toSend = 0;
  // The validation pass writes every record, ready to send, to a spool the send pass streams.
  const spool = claim ? await SpoolWriter.create(claim.paths.spool) : undefined;
  const plan = await planCampaign(
    readCampaign(campaignOptions),
    settings.batchSize,
    spool &&
      ((record) => {
        const entry = entryOf(record);
        if (entry.kind === 'message' && !settled(entry.row)) toSend++;
        return spool.add(entry);
      }),
  );
  await spool?.close();
  const blocking = plan.fileProblems.length > 0 || (plan.invalid > 0 && !flags.skipInvalid);
  const problem = blocking
    ? new UsageError(renderInvalid(plan, true), 'invalid-input')
    : plan.records === 0
      ? new UsageError(`${files.map((f) => f.label).join(', ')}: no records to send`, 'empty-input')
      : undefined;
  if (flags.dryRun) {
    if (flags.json) {
      // One document on stdout, even when the plan shows the run would be refused.
      const error = problem && { code: problem.code, message: problem.message, exitCode: 2 };
      process.stdout.write(
        `${JSON.stringify({ ...planJson(plan, identity.id), ...(error ? { error } : {}) })}\n`,
      );
      return problem ? 2 : 0;
    }
    process.stdout.write(`${renderPlan(plan, out)}\n`);
    process.stdout.write(`${out.dim(`campaign ${identity.id}`)}\n`);
  }
  if (problem) throw problem;
  if (!claim || !spool) return 0;

  const target = gatewayTarget(settings, flags);
  if (toSend > CONFIRM_ABOVE && !flags.yes && process.stdin.isTTY && process.stderr.isTTY) {
    const left = claim.journal ? ' left in this campaign' : '';
    if (
      !(await confirm(`Send ${toSend.toLocaleString('en-US')} messages${left} to ${target.label}?`))
    ) {
      throw new UsageError('not confirmed: nothing was sent', 'not-confirmed');
    }
  }

  const gateway = await openGateway(target, flags, {
    connections: settings.concurrency,
    timeoutMs: settings.timeoutMs,
  });

  const startedAt = new Date().toISOString();
  const manifest = await claim.start({
    v: MANIFEST_VERSION,
    id: identity.id,
    named: identity.named,
    contentHash: identity.contentHash,
    inputs: context.inputs,
    target: targetName(settings, flags),
    report: absolute(reportPath),
    startedAt,
    updatedAt: startedAt,
    status: 'running',
    records: plan.records,
    counts: emptyCounts(),
  });
  const previousReport = claim.previous?.reports.at(-1);

  const tally = new Tally();
  const events = new SendEmitter();
  events.on('record', (row, earlier) => tally.add(row, earlier));
  const progress = showProgress(events, tally, {
    label: flags.simulate ? 'simulating' : 'sending',
    total: toSend,
    intervalSeconds: flags.progressInterval ?? 10,
    quiet: flags.quiet === true || flags.json === true,
    verbose: flags.verbose === true,
  });
  const signals = watchSignals({
    first: () => {
      progress.note(
        'stopping: finishing the batches in flight (press Ctrl-C again to abandon them)',
      );
    },
    second: () => progress.note('abandoning the batches in flight'),
  });

  let result;
  try {
    result = await runCampaign(
      {
        entries: readSpool(spool.path),
        reportPath,
        journalPath: claim.paths.journal,
        contentHash: identity.contentHash,
        previous: claim.journal,
        overwriteReport: flags.force === true || flags.resume === true,
        retryUnknown: flags.retryUnknown === true,
        poster: gateway.client,
        batchSize: settings.batchSize,
        concurrency: settings.concurrency,
        retries: settings.retries,
        rate: settings.rate,
        stopSignal: signals.stop,
        abortSignal: signals.abort,
      },
      events,
    );
  } finally {
    signals.dispose();
    progress.stop();
    await gateway.close({ abort: signals.abort.aborted });
  }

  const summary = tally.summary(reportPath);
  await claim.finish({
    status: result.stopped ? 'stopped' : result.interrupted ? 'interrupted' : 'finished',
    counts: summary.byOutcome,
    records: summary.total,
    reason: result.stopped?.reason,
  });
  const stoppedReason = result.stopped?.reason;
  const exitCode = result.stopped ? 3 : result.interrupted ? 130 : summary.exitCode;
  const simulated = gateway.simulated;
  const movedFrom =
    result.resumed && previousReport && previousReport !== manifest.reports.at(-1)
      ? previousReport
      : undefined;
  if (flags.json) {
    process.stdout.write(
      `${JSON.stringify(summaryJson(summary, exitCode, simulated, stoppedReason, result.resumed, identity.id))}\n`,
    );
  } else if (!flags.quiet) {
    process.stdout.write(
      `${renderSummary(
        summary,
        {
          simulated,
          stoppedReason,
          resumed: result.resumed,
          interrupted: result.interrupted,
          campaign: identity.id,
          previousReport: movedFrom,
        },
        out,
      )}\n`,
    );
  }
  // Under --json the summary already carries the exit code and the reason: one document only.
  if (flags.json) return exitCode;
  if (result.stopped) {
    throw new GatewayUnusableError(
      (result.stopped.authRefused
        ? `the gateway refused the credentials: ${result.stopped.reason}`
        : `the gateway could not be used: ${result.stopped.reason}`) +
        `. Finish the campaign later with:\n  ${resumeCommand()}`,
    );
  }
  if (result.interrupted) {
    throw new InterruptedError(
      `interrupted: ${result.notSent.toLocaleString('en-US')} records not sent. ` +
        `Finish the campaign with:\n  ${resumeCommand()}`,
    );
  }
  if (!flags.json && !flags.quiet && summary.byOutcome.unknown > 0) {
    process.stderr.write(
      err.yellow(
        `${summary.byOutcome.unknown} records are unknown: the gateway may have them. ` +
          'They are not resent automatically (--retry-unknown does, at the risk of sending twice).\n',
      ),
    );
  }
  return summary.exitCode;
}

/** The command line that finishes this campaign: the same arguments, with --resume. */
function resumeCommand(): string {
  const args = process.argv.slice(2).filter((a) => a !== '--force' && a !== '--resume');
  return [
    'sms-send',
    ...args.map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, "'\\''")}'`)),
    '--resume',
  ].join(' ');
}

/**
 * The report path: `--report` with {date}, {time} and {name} filled (so a cron line gets one
 * report per night), or `<input basename>.report.csv` beside the first input; for standard input,
 * `stdin-<campaign ID>.report.csv`, so two different piped campaigns do not share a report.
 */
export function expandReportPath(
  template: string | undefined,
  input: string,
  now: Date,
  campaignId: string,
): string {
  if (template !== undefined) return expandPlaceholders(template, input, now);
  if (input === '-') return `stdin-${campaignId.slice(0, 8)}.report.csv`;
  return join(dirname(input), `${basename(input, extname(input))}.report.csv`);
}

/** Where the messages went, as the manifest shows it. */
function targetName(settings: Settings, flags: SendFlags): string {
  return flags.simulate ? 'simulator' : (settings.endpoint ?? '');
}

function emptyCounts(): Record<Outcome, number> {
  return Object.fromEntries(OUTCOMES.map((o) => [o, 0])) as Record<Outcome, number>;
}

async function loadTemplate(
  flags: SendFlags,
): Promise<{ source: string; compiled: Template } | undefined> {
  if (flags.text !== undefined && flags.textFile !== undefined) {
    throw new UsageError('give --text or --text-file, not both');
  }
  let source = flags.text;
  if (flags.textFile !== undefined) {
    try {
      source = (await readFile(flags.textFile, 'utf8')).replace(/\r?\n$/, '');
    } catch {
      throw new UsageError(`cannot read --text-file ${flags.textFile}`);
    }
  }
  return source === undefined ? undefined : { source, compiled: compileTemplate(source) };
}

async function hashInputs(files: InputFile[]): Promise<{ sha256: string; bytes: number }[]> {
  const hashes = [];
  for (const file of files) {
    try {
      hashes.push(await hashFile(file.path));
    } catch (error) {
      const e = error as NodeJS.ErrnoException;
      if (e.code === 'ENOENT') throw new UsageError(`${file.label}: does not exist`, 'input');
      if (e.code === 'EISDIR') {
        throw new UsageError(`${file.label}: is a directory, not a file`, 'input');
      }
      throw new UsageError(`${file.label}: cannot read (${e.code ?? e.message})`, 'input');
    }
  }
  return hashes;
}

function absolute(path: string): string {
  return path === '-' ? '-' : resolvePath(path);
}

async function confirm(question: string): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  // End of input (Ctrl-D) is a "no", not a hang.
  const closed = new Promise<string>((resolve) => rl.once('close', () => resolve('')));
  try {
    const answer = await Promise.race([rl.question(`${question} [y/N] `), closed]);
    return /^y(es)?$/i.test(answer.trim());
  } finally {
    rl.close();
  }
}
