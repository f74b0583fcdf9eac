// `sms-send send`: wiring only. Flags in, prepareCampaign() and its send pass, events to the UI, result to a renderer.
import { resolve as resolvePath } from 'node:path';
import type { Settings } from '../../config/settings.js';
import { ExitCode, InterruptedError, UsageError } from '../../shared/errors.js';
import { spoolStream } from '../../input/stdin.js';
import { loadTemplate, prepareCampaign } from '../../campaign/prepare.js';
import type { CampaignRequest, PreparedCampaign } from '../../campaign/types.js';
import { SendEmitter } from '../../send/events.js';
import {
  gatewayTarget,
  openGateway,
  settingsFor,
  type GatewayFlags,
  type Target,
} from '../gateway-settings.js';
import { colorFor } from '../ui/color.js';
import { confirm } from '../ui/confirm.js';
import { endRun } from '../ui/ending.js';
import { formatCount, plural } from '../ui/format.js';
import { errorJson, planJson, planProblems } from '../ui/json.js';
import { renderInvalid, renderOverMaxCost, renderPlan } from '../ui/plan.js';
import { showProgress, showValidationProgress } from '../ui/progress.js';
import { watchSignals } from '../ui/signals.js';
import { renderWaiting, renderWindowPlan, windowJson } from '../ui/window.js';
import { windowState } from '../../shared/window.js';

/** A terminal run this large asks before sending (--yes skips it; a non-TTY run never asks). */
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
  /** false with --no-wait: outside the send window, exit 5 instead of waiting. */
  wait?: boolean;
  quiet?: boolean;
  verbose?: boolean;
  progressInterval?: number;
  text?: string;
  textFile?: string;
  map?: { to?: string; text?: string };
  inputFormat?: string;
  delimiter?: string;
}

export async function runSend(inputs: string[], flags: SendFlags): Promise<ExitCode> {
  if (flags.force && flags.resume) {
    throw new UsageError('--force and --resume contradict each other');
  }
  const settings = await settingsFor(flags, inputs);
  // Where to send is known before the campaign's state is looked at: a missing endpoint is
  // the problem to name, not a report that happens to exist.
  const target = flags.dryRun ? undefined : gatewayTarget(settings, flags);
  const template = await loadTemplate(flags.text, flags.textFile);
  // Standard input is read more than once (identity, validation, send): it is spooled first.
  const stdin = inputs.includes('-') ? await spoolStream(process.stdin) : undefined;
  // The validation pass reads every record before the first is sent: long enough on a big file
  // that silence would look like a hang.
  const validation = showValidationProgress({
    intervalSeconds: flags.progressInterval ?? 10,
    quiet: flags.quiet === true || flags.json === true,
  });
  try {
    const prepared = await prepareCampaign({
      ...campaignRequest(inputs, flags, { settings, template, stdinPath: stdin?.path }),
      onValidated: validation.read,
    }).finally(() => validation.stop());
    try {
      return await sendPrepared(prepared, settings, flags, inputs, target);
    } finally {
      await prepared.close();
    }
  } finally {
    await stdin?.remove();
  }
}

/** The core request for these flags: the one mapping from send's flags to prepareCampaign(). */
export function campaignRequest(
  inputs: string[],
  flags: SendFlags,
  context: { settings: Settings; template?: string; stdinPath?: string; cwd?: string },
): CampaignRequest {
  const path = (input: string) => (context.cwd ? resolvePath(context.cwd, input) : input);
  return {
    files: inputs.map((input) => ({
      path: input === '-' ? context.stdinPath! : path(input),
      label: input,
    })),
    settings: context.settings,
    simulate: flags.simulate === true,
    mapping: flags.map ?? {},
    template: context.template,
    inputFormat: flags.inputFormat,
    delimiter: flags.delimiter,
    limit: flags.limit,
    dedupe: flags.dedupe,
    skipInvalid: flags.skipInvalid,
    report: flags.report,
    force: flags.force === true,
    resume: flags.resume === true,
    retryUnknown: flags.retryUnknown === true,
    noWait: flags.wait === false,
    dryRun: flags.dryRun === true,
    now: new Date(),
  };
}

/**
 * The dry run's plan, or the confirmation, the send pass and its ending: shared by send and retry.
 * `extra` goes into the --json documents beside `plan` or `summary` (retry's `followUp`).
 */
export async function sendPrepared(
  prepared: PreparedCampaign,
  settings: Awaited<ReturnType<typeof settingsFor>>,
  flags: SendFlags,
  inputs: string[],
  target: Target | undefined,
  extra: Record<string, unknown> = {},
): Promise<ExitCode> {
  // A dry run agrees with a real run: refused by the input, or by the campaign's state.
  const problem =
    refusalError(prepared, inputs) ?? (flags.dryRun ? prepared.stateRefusal : undefined);
  if (flags.dryRun) return printDryRun(prepared, settings, flags, problem, extra);
  if (problem) throw problem;
  // Only a dry run has no target, and it has returned above.
  if (!target) throw new Error('a send without a gateway target');
  await confirmSend(prepared, flags, target);
  const { result, simulated } = await sendWithProgress(prepared, settings, flags, target);
  return endRun(result, {
    simulated,
    campaign: prepared.identity.id,
    json: flags.json === true,
    quiet: flags.quiet === true,
    extra,
  });
}

/** The dry run's plan (or its refusal, with the plan in the --json document). */
function printDryRun(
  prepared: PreparedCampaign,
  settings: Awaited<ReturnType<typeof settingsFor>>,
  flags: SendFlags,
  problem: UsageError | undefined,
  extra: Record<string, unknown>,
): ExitCode {
  const out = colorFor('stdout');
  const { plan, identity } = prepared;
  const document = { ...planJson(plan, identity.id), ...extra };
  if (prepared.resuming) (document.plan as Record<string, unknown>).leftToSend = prepared.toSend;
  // When the run would send: the window, and whether it is open now or when it opens.
  const window = settings.sendWindow;
  const now = Date.now();
  const state = window ? windowState(window, now) : undefined;
  if (window && state)
    (document.plan as Record<string, unknown>).window = windowJson(window, state);
  const windowLine = window && state ? `\n${renderWindowPlan(window, state, now)}` : '';
  if (problem) {
    if (!flags.json) process.stdout.write(`${renderPlan(plan, out)}\n`);
    // One document on stdout, even when the plan shows the run would be refused.
    const error = errorJson(problem);
    throw new UsageError(problem.message, problem.code, { ...document, error }, problem.problems);
  }
  const left = prepared.resuming
    ? `\n${plural(prepared.toSend, 'message')} left to send (--resume: the rest were settled by an earlier run)`
    : '';
  // A dry run needs no gateway (it checks the input and the campaign's state), but it does not
  // let a plan pass for a run that would be refused for want of one without saying so.
  const noGateway =
    !flags.simulate && !settings.endpoint
      ? `\n${out.yellow('no gateway endpoint is set: the real run needs --endpoint URL (or --simulate)')}`
      : '';
  process.stdout.write(
    flags.json
      ? `${JSON.stringify(document)}\n`
      : `${renderPlan(plan, out)}${left}${windowLine}${noGateway}\n${out.dim(`campaign ${identity.id}`)}\n`,
  );
  return ExitCode.ok;
}

/** A large send from a terminal asks first, unless --yes. */
async function confirmSend(prepared: PreparedCampaign, flags: SendFlags, target: Target) {
  const { plan } = prepared;
  if (
    prepared.toSend > CONFIRM_ABOVE &&
    !flags.yes &&
    process.stdin.isTTY &&
    process.stderr.isTTY
  ) {
    const left = prepared.resuming ? ' left in this campaign' : '';
    // Said before the yes, so a list that matched nobody (or everybody) is noticed in time.
    const suppressed = plan.suppressed > 0 ? ` (${formatCount(plan.suppressed)} suppressed)` : '';
    const answer = await confirm(
      `Send ${plural(prepared.toSend, 'message')}${left} to ${target.label}${suppressed}?`,
    );
    if (answer === 'interrupted') {
      throw new InterruptedError('interrupted at the confirmation: nothing was sent');
    }
    if (answer === 'no') throw new UsageError('not confirmed: nothing was sent', 'not-confirmed');
  }
}

/** The send pass with its progress lines and Ctrl-C handling, the gateway closed after it. */
async function sendWithProgress(
  prepared: PreparedCampaign,
  settings: Awaited<ReturnType<typeof settingsFor>>,
  flags: SendFlags,
  target: Target,
) {
  const gateway = await openGateway(target, flags, {
    connections: settings.concurrency,
    timeoutMs: settings.timeoutMs,
  });
  const events = new SendEmitter();
  const progress = showProgress(events, prepared.tally, {
    label: flags.simulate ? 'simulating' : 'sending',
    total: prepared.toSend,
    intervalSeconds: flags.progressInterval ?? 10,
    quiet: flags.quiet === true || flags.json === true,
    verbose: flags.verbose === true,
  });
  const signals = watchSignals({
    first: () =>
      progress.note(
        'stopping: finishing the batches in flight (press Ctrl-C again to abandon them)',
      ),
    second: () => progress.note('abandoning the batches in flight'),
  });
  // Under --json stdout holds only the final document; a run that waits for hours says so on
  // stderr rather than look hung. --quiet prints only errors.
  if (flags.json && !flags.quiet) {
    events.on('waiting', (wait) => process.stderr.write(`${renderWaiting(wait)}\n`));
  }
  let result;
  try {
    result = await prepared.send({
      poster: gateway.client,
      target: gateway.simulated ? 'simulator' : (settings.endpoint ?? ''),
      events,
      stopSignal: signals.stop,
      abortSignal: signals.abort,
    });
  } finally {
    signals.dispose();
    progress.stop();
    await gateway.close({ abort: signals.abort.aborted });
  }
  return { result, simulated: gateway.simulated };
}

/** The plan's refusal, worded as the user sees it (exit 2), or undefined when the run may go on. */
export function refusalError(prepared: PreparedCampaign, inputs: string[]): UsageError | undefined {
  if (prepared.refusal === 'invalid-input') {
    const problems = planProblems(prepared.plan);
    // A follow-up has no --skip-invalid to offer: its records are the original's.
    const hint = !prepared.followUp;
    return new UsageError(renderInvalid(prepared.plan, hint), 'invalid-input', undefined, problems);
  }
  if (prepared.refusal === 'empty-input') {
    return new UsageError(`${inputs.join(', ')}: no records to send`, 'empty-input');
  }
  if (prepared.refusal === 'over-max-cost') {
    return new UsageError(renderOverMaxCost(prepared.plan), 'over-max-cost');
  }
  return undefined;
}
