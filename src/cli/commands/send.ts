// `sms-send send`: settings → plan (validation pass) → confirm → send pass → report and summary.
import { readFile } from 'node:fs/promises';
import { basename, dirname, extname, join } from 'node:path';
import { createInterface } from 'node:readline/promises';
import type { MessageDefaults, Settings } from '../../config/settings.js';
import { GatewayUnusableError, InterruptedError, UsageError } from '../../errors.js';
import { campaignKey } from '../../input/campaign-key.js';
import type { InputFile } from '../../input/open.js';
import { spoolStream } from '../../input/stdin.js';
import { checkDefaults } from '../../message/defaults.js';
import { readCampaign, type CampaignOptions } from '../../message/campaign.js';
import { planCampaign } from '../../message/plan.js';
import { compileTemplate } from '../../message/template.js';
import { acquireLock, lockPath, type Lock } from '../../journal/lock.js';
import { Tally } from '../../report/summary.js';
import { reportExistsError, reportFormat } from '../../report/writer.js';
import { entryOf } from '../../send/entries.js';
import { SendEmitter } from '../../send/events.js';
import { runCampaign } from '../../send/run.js';
import { readSpool, removeSpool, SpoolWriter } from '../../send/spool.js';
import { gatewayTarget, openGateway, settingsFor, type GatewayFlags } from '../gateway-settings.js';
import { colorFor } from '../ui/color.js';
import { planJson, summaryJson } from '../ui/json.js';
import { renderInvalid, renderPlan } from '../ui/plan.js';
import { showProgress } from '../ui/progress.js';
import { watchSignals } from '../ui/signals.js';
import { renderSummary } from '../ui/summary.js';
import { exists } from '../../exists.js';

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

  const reportPath = expandReportPath(flags.report, inputs[0]!, new Date());
  reportFormat(reportPath);
  if (!(await exists(dirname(reportPath) || '.'))) {
    throw new UsageError(
      `cannot write the report ${reportPath}: the folder ${dirname(reportPath)} does not exist`,
    );
  }
  // The lock comes first: a second run of a campaign in progress must say so (exit 4), not that
  // the report exists.
  const lock: Lock | undefined = flags.dryRun ? undefined : await acquireLock(lockPath(reportPath));
  const stdin = inputs.includes('-') ? await spoolStream(process.stdin) : undefined;
  try {
    if (!flags.dryRun && !flags.force && !flags.resume && (await exists(reportPath))) {
      throw reportExistsError(reportPath);
    }
    const files = inputs.map((input) => ({
      path: input === '-' ? stdin!.path : input,
      label: input,
    }));
    return await sendCampaign(files, reportPath, settings, flags);
  } finally {
    await stdin?.remove();
    await lock?.release();
  }
}

async function sendCampaign(
  files: InputFile[],
  reportPath: string,
  settings: Settings,
  flags: SendFlags,
): Promise<number> {
  const out = colorFor('stdout');
  const err = colorFor('stderr');
  const now = new Date();
  const defaultProblems = checkDefaults(settings.defaults, now);
  if (defaultProblems.length > 0) {
    const lines = defaultProblems.map(
      (p) => `  ${describeSetting(p.key, settings.sources[p.key])}: ${p.reason}`,
    );
    throw new UsageError(
      `message defaults have problems:\n${lines.join('\n')}\nNothing was sent.`,
      'config',
    );
  }
  const campaignOptions: CampaignOptions = {
    files,
    inputFormat: flags.inputFormat,
    delimiter: flags.delimiter,
    mapping: flags.map ?? {},
    template: await loadTemplate(flags),
    defaults: settings.defaults,
    country: settings.country,
    campaignKey: await campaignKeyOf(files),
    now,
    limit: flags.limit,
    dedupe: flags.dedupe,
  };

  // The validation pass writes every record, ready to send, to a spool the send pass streams.
  const spool = flags.dryRun ? undefined : await SpoolWriter.create(`${reportPath}.spool`);
  try {
    const plan = await planCampaign(
      readCampaign(campaignOptions),
      settings.batchSize,
      spool && ((record) => spool.add(entryOf(record))),
    );
    await spool?.close();
    const blocking = plan.fileProblems.length > 0 || (plan.invalid > 0 && !flags.skipInvalid);
    const problem = blocking
      ? new UsageError(renderInvalid(plan, true), 'invalid-input')
      : plan.records === 0
        ? new UsageError(
            `${files.map((f) => f.label).join(', ')}: no records to send`,
            'empty-input',
          )
        : undefined;
    if (flags.dryRun) {
      if (flags.json) {
        // One document on stdout, even when the plan shows the run would be refused.
        const error = problem && { code: problem.code, message: problem.message, exitCode: 2 };
        process.stdout.write(
          `${JSON.stringify({ ...planJson(plan), ...(error ? { error } : {}) })}\n`,
        );
        return problem ? 2 : 0;
      }
      process.stdout.write(`${renderPlan(plan, out)}\n`);
    }
    if (problem) throw problem;
    if (flags.dryRun) return 0;

    const target = gatewayTarget(settings, flags);
    if (plan.valid > CONFIRM_ABOVE && !flags.yes && process.stdin.isTTY && process.stderr.isTTY) {
      if (
        !(await confirm(`Send ${plan.valid.toLocaleString('en-US')} messages to ${target.label}?`))
      ) {
        throw new UsageError('not confirmed: nothing was sent', 'not-confirmed');
      }
    }

    const gateway = await openGateway(target, flags, {
      connections: settings.concurrency,
      timeoutMs: settings.timeoutMs,
    });

    const tally = new Tally();
    const events = new SendEmitter();
    events.on('record', (row) => tally.add(row));
    const progress = showProgress(events, tally, {
      label: flags.simulate ? 'simulating' : 'sending',
      total: plan.records,
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
          entries: readSpool(spool!.path),
          reportPath,
          campaignKey: campaignOptions.campaignKey,
          force: flags.force === true,
          resume: flags.resume === true,
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
    const stoppedReason = result.stopped?.reason;
    const exitCode = result.stopped ? 3 : result.interrupted ? 130 : summary.exitCode;
    const simulated = gateway.simulated;
    if (flags.json) {
      process.stdout.write(
        `${JSON.stringify(summaryJson(summary, exitCode, simulated, stoppedReason, result.resumed))}\n`,
      );
    } else if (!flags.quiet) {
      process.stdout.write(
        `${renderSummary(
          summary,
          { simulated, stoppedReason, resumed: result.resumed, interrupted: result.interrupted },
          out,
        )}\n`,
      );
    }
    // Under --json the summary already carries the exit code and the reason: one document only.
    if (flags.json) return exitCode;
    if (result.stopped) {
      throw new GatewayUnusableError(
        result.stopped.authRefused
          ? `the gateway refused the credentials: ${result.stopped.reason}`
          : `the gateway could not be used: ${result.stopped.reason}`,
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
  } finally {
    if (spool) await removeSpool(spool.path);
  }
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

const FLAG_FOR: Partial<Record<keyof MessageDefaults, string>> = {
  originatorAddress: '--from',
  validationPeriod: '--validity',
  deliveryReportUrl: '--dlr-url',
  messageType: '--message-type',
  serviceCode: '--service-code',
  serviceDescription: '--service-description',
  gateway: '--gateway',
  price: '--price',
  category: '--category',
};

/** Names a setting the way the user set it: the flag, or the config key and its file. */
function describeSetting(key: keyof MessageDefaults, source: string | undefined): string {
  if (source === 'flag') return FLAG_FOR[key] ?? key;
  if (source === undefined || source === 'default') return key;
  return `${key} (${source})`;
}

/**
 * The report path: `--report` with {date}, {time} and {name} filled (so a cron line gets one
 * report per night), or `<input basename>.report.csv` beside the first input.
 */
export function expandReportPath(template: string | undefined, input: string, now: Date): string {
  const name = input === '-' ? 'stdin' : basename(input, extname(input));
  if (template === undefined) {
    return input === '-' ? 'stdin.report.csv' : join(dirname(input), `${name}.report.csv`);
  }
  const pad = (n: number) => String(n).padStart(2, '0');
  const date = `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
  const time = `${pad(now.getHours())}${pad(now.getMinutes())}${pad(now.getSeconds())}`;
  return template.replaceAll('{date}', date).replaceAll('{time}', time).replaceAll('{name}', name);
}

async function loadTemplate(flags: SendFlags) {
  if (flags.text !== undefined && flags.textFile !== undefined) {
    throw new UsageError('give --text or --text-file, not both');
  }
  if (flags.textFile !== undefined) {
    try {
      const source = await readFile(flags.textFile, 'utf8');
      return compileTemplate(source.replace(/\r?\n$/, ''));
    } catch {
      throw new UsageError(`cannot read --text-file ${flags.textFile}`);
    }
  }
  return flags.text !== undefined ? compileTemplate(flags.text) : undefined;
}

async function campaignKeyOf(files: InputFile[]): Promise<string> {
  try {
    return await campaignKey(files.map((f) => f.path));
  } catch (error) {
    const e = error as NodeJS.ErrnoException;
    const file = files.find((f) => f.path === e.path)?.label ?? e.path ?? files[0]!.label;
    if (e.code === 'ENOENT') throw new UsageError(`${file}: does not exist`, 'input');
    if (e.code === 'EISDIR') throw new UsageError(`${file}: is a directory, not a file`, 'input');
    throw new UsageError(`${file}: cannot read (${e.code ?? e.message})`, 'input');
  }
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
