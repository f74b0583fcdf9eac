// `sms-send send`: wiring only. Flags in, prepareCampaign() and its send pass, events to the UI, result to a renderer.
import type { Settings } from '../../config/settings.js';
import {
  describeSystemError,
  ExitCode,
  InterruptedError,
  UsageError,
} from '../../shared/errors.js';
import { spoolStream } from '../../input/stdin.js';
import { planDocument } from '../../campaign/documents.js';
import { refusedPlan, sendToTarget } from '../../campaign/flow.js';
import { gatewayTarget, type Target } from '../../campaign/target.js';
import { loadTemplate, prepareCampaign } from '../../campaign/prepare/index.js';
import { refusalError } from '../../campaign/refusal.js';
import { campaignRequest, type CampaignChoices } from '../../campaign/request.js';
import type { PreparedCampaign } from '../../campaign/types.js';
import { SendEmitter } from '../../send/events.js';
import { settingsFor, type GatewayFlags } from '../gateway-settings.js';
import type { Invocation } from '../invocation.js';
import { colorFor } from '../ui/color.js';
import { confirm } from '../ui/confirm.js';
import { endRun } from '../ui/ending.js';
import { formatCount, plural } from '../ui/format.js';
import { renderPlan } from '../ui/plan.js';
import { showProgress, showValidationProgress } from '../ui/progress.js';
import { renderStopping, watchSignals } from '../ui/signals.js';
import { renderWaiting, renderWindowPlan } from '../ui/window.js';
import { windowState } from '../../shared/window.js';
import { campaignPage } from '../../report/html/campaign-page.js';
import { maskUserInfo } from '../../shared/url.js';
import { recordTimeline, type TimelineRecorder } from '../../report/html/recorder.js';
import { redactor } from '../../gateway/redact.js';
import { campaignPaths } from '../../journal/state.js';
import { writePage } from '../page-file.js';
import { shellWord } from '../ui/format.js';

/** A terminal run this large asks before sending (--yes skips it; a non-TTY run never asks). */
const CONFIRM_ABOVE = 1000;

/** send's flags: the campaign's choices (declared once, in campaign/request.ts), and how to show it. */
export interface SendFlags extends GatewayFlags, CampaignChoices {
  /** Also write the campaign's HTML page here when the run ends. */
  html?: string;
  yes?: boolean;
  json?: boolean;
  quiet?: boolean;
  verbose?: boolean;
  progressInterval?: number;
  text?: string;
  textFile?: string;
}

export async function runSend(
  inputs: string[],
  flags: SendFlags,
  invocation: Invocation,
): Promise<ExitCode> {
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
  const events = new SendEmitter();
  const validation = showValidationProgress({
    intervalSeconds: flags.progressInterval ?? 10,
    quiet: flags.quiet === true || flags.json === true,
  });
  events.on('validated', validation.read);
  try {
    const prepared = await prepareCampaign({
      ...campaignRequest(inputs, flags, { settings, template, stdinPath: stdin?.path }),
      onValidated: (records) => events.emit('validated', records),
      program: invocation.program,
    }).finally(() => validation.stop());
    try {
      return await sendPrepared(prepared, { settings, flags, inputs, target, events, invocation });
    } finally {
      await prepared.close();
    }
  } finally {
    await stdin?.remove();
  }
}

/** What sendPrepared needs beside the campaign: send and retry each give theirs. */
export interface SendContext {
  settings: Settings;
  flags: SendFlags;
  /** The inputs as the user named them. */
  inputs: readonly string[];
  /** Undefined for a dry run only. */
  target: Target | undefined;
  events: SendEmitter;
  /** How the user ran the program: the command that finishes a stopped run is written so. */
  invocation: Invocation;
  /** Beside `plan` or `summary` in the --json documents (retry's `followUp`). */
  extra?: Record<string, unknown>;
}

/**
 * The dry run's plan, or the confirmation, the send pass and its ending: shared by send and retry,
 * and built on the core steps the programmatic API takes (campaign/flow.ts): this adds the prompt,
 * the progress display, Ctrl-C and what is printed.
 */
export async function sendPrepared(
  prepared: PreparedCampaign,
  context: SendContext,
): Promise<ExitCode> {
  const { flags, target } = context;
  // Before the plan and the prompt: what looks mistyped is seen before anything is sent, with
  // --quiet too (it hides progress, never a problem with what recipients will read).
  const err = colorFor('stderr');
  for (const { file, message } of prepared.plan.warnings) {
    process.stderr.write(err.yellow(`warning: ${file}: ${message}\n`));
  }
  if (!flags.quiet) for (const note of prepared.notes) process.stderr.write(`${note}\n`);
  // A dry run agrees with a real run: refused by the input, or by the campaign's state.
  const problem =
    refusalError(prepared, context.inputs) ?? (flags.dryRun ? prepared.stateRefusal : undefined);
  if (flags.dryRun) return printDryRun(prepared, context, problem);
  if (problem) throw problem;
  // Only a dry run has no target, and it has returned above.
  if (!target) throw new Error('a send without a gateway target');
  await confirmSend(prepared, flags, target);
  const timeline = recordTimeline(context.events, context.settings, commandLine(context.settings));
  const sent = await sendWithProgress(prepared, { ...context, target }).finally(() =>
    keepRunRecord(prepared, context, timeline),
  );
  const { result, simulated } = sent;
  return endRun(result, {
    simulated,
    campaign: prepared.identity.id,
    json: flags.json === true,
    quiet: flags.quiet === true,
    extra: context.extra,
    invocation: context.invocation,
  });
}

/**
 * When the run ends, however it ends: its timeline into the campaign's state, and with --html the
 * page beside the report. Neither may change what the run ends with (the report is the record),
 * so a failure is a warning.
 */
async function keepRunRecord(
  prepared: PreparedCampaign,
  { settings, flags }: SendContext,
  timeline: TimelineRecorder,
): Promise<void> {
  const dir = campaignPaths(settings.stateDir, prepared.identity.id).dir;
  const warn = (what: string, error: unknown) =>
    process.stderr.write(
      colorFor('stderr').yellow(`warning: ${what}: ${describeSystemError(error)}\n`),
    );
  await timeline
    .finish(dir, flags.simulate ? 'simulator' : maskUserInfo(settings.endpoint ?? ''))
    .catch((error: unknown) => warn("the run's timeline was not kept", error));
  if (flags.html === undefined) return;
  try {
    const page = await campaignPage({
      what: prepared.identity.id,
      stateDir: settings.stateDir,
      pricePerSegment: settings.pricePerSegment,
      currency: settings.currency,
    });
    await writePage(flags.html, page.html);
  } catch (error) {
    warn(`the page ${flags.html} was not written`, error);
  }
}

/** The command line as the user ran it, for the page: credentials in it masked. */
function commandLine(settings: Settings): string {
  const words = ['sms-send', ...process.argv.slice(2)].map((w) => shellWord(maskUserInfo(w)));
  const line = words.join(' ');
  return settings.username !== undefined && settings.password !== undefined
    ? redactor(settings.username, settings.password)(line)
    : line;
}

/** The dry run's plan (or its refusal, with the plan in the --json document). */
function printDryRun(
  prepared: PreparedCampaign,
  { settings, flags, extra }: SendContext,
  problem: UsageError | undefined,
): ExitCode {
  const out = colorFor('stdout');
  const { plan, identity } = prepared;
  // When the run would send: the window, and whether it is open now or when it opens.
  const window = settings.sendWindow;
  const now = Date.now();
  const document = planDocument(prepared, window, extra, now);
  const state = window ? windowState(window, now) : undefined;
  const windowLine = window && state ? `\n${renderWindowPlan(window, state, now)}` : '';
  const left = prepared.resuming ? prepared.toSend : undefined;
  if (problem) {
    if (!flags.json) process.stdout.write(`${renderPlan(plan, out, left)}\n`);
    // One document on stdout, even when the plan shows the run would be refused.
    throw refusedPlan(problem, document);
  }
  // A dry run needs no gateway (it checks the input and the campaign's state), but it does not
  // let a plan pass for a run that would be refused for want of one without saying so.
  const noGateway =
    !flags.simulate && !settings.endpoint
      ? `\n${out.yellow('no gateway endpoint is set: the real run needs --endpoint URL (or --simulate)')}`
      : '';
  process.stdout.write(
    flags.json
      ? `${JSON.stringify(document)}\n`
      : `${renderPlan(plan, out, left)}${windowLine}${noGateway}\n${out.dim(`campaign ${identity.id}`)}\n`,
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

/** The send pass with its progress lines and Ctrl-C handling. */
async function sendWithProgress(
  prepared: PreparedCampaign,
  { settings, flags, target, events }: SendContext & { target: Target },
) {
  const progress = showProgress(events, prepared.tally, {
    label: flags.simulate ? 'simulating' : 'sending',
    total: prepared.toSend,
    intervalSeconds: flags.progressInterval ?? 10,
    quiet: flags.quiet === true || flags.json === true,
    verbose: flags.verbose === true,
    endpoint: target.label,
  });
  // Said as it happens (a rehearsal set aside as the run starts); under --json on stderr.
  if (!flags.quiet) {
    events.on('note', (line) =>
      flags.json ? process.stderr.write(`${line}\n`) : progress.note(line),
    );
  }
  // While the run waits for its send window nothing is in flight, and a stop says so.
  let windowOpensAt = 0;
  events.on('waiting', (wait) => (windowOpensAt = wait.opensAt));
  const signals = watchSignals({
    first: (signal) =>
      progress.note(renderStopping({ signal, waitingForWindow: Date.now() < windowOpensAt })),
    second: () => progress.note('abandoning the batches in flight'),
  });
  // Under --json stdout holds only the final document; a run that waits for hours says so on
  // stderr rather than look hung. --quiet prints only errors.
  if (flags.json && !flags.quiet) {
    events.on('waiting', (wait) => process.stderr.write(`${renderWaiting(wait)}\n`));
  }
  try {
    return await sendToTarget(prepared, {
      settings,
      target,
      choice: flags,
      events,
      stopSignal: signals.stop,
      abortSignal: signals.abort,
    });
  } finally {
    signals.dispose();
    progress.stop();
  }
}
