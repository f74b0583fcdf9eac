// The programmatic API: send(), plan() and check() for Node scripts. The same core steps the
// command line takes, minus the terminal: no prompt, no spinner, nothing printed, no exit. Each
// returns the document `--json` prints, or throws the typed error carrying its exit code.
import type * as v from 'valibot';
import { resolveSettings } from '../config/resolve.js';
import type { Settings } from '../config/settings.js';
import type { settingsSchema } from '../config/table.js';
import { checkInputsPresent } from '../input/present.js';
import { SendEmitter } from '../send/events.js';
import { parseDuration } from '../shared/duration.js';
import { InterruptedError, UsageError } from '../shared/errors.js';
import { checkEnding, checkTarget, type CheckDocument, type CheckRequest } from './check.js';
import {
  planDocument,
  summaryDocument,
  type PlanDocument,
  type SummaryDocument,
} from './documents.js';
import { endingError, refusedPlan } from './ending.js';
import { refusalError } from './refusal.js';
import {
  campaignRun,
  fromCwd,
  inputFiles,
  loadTemplate,
  type CampaignChoices,
  type CampaignRun,
} from './run.js';
import { planOnly, sendCampaign } from './steps/index.js';
import { gatewayAccess } from './target.js';
import type { PlannedCampaign } from './types.js';

/** Settings by their config-file names (`endpoint`, `username`, `password`, `batchSize`, …). */
export type SettingsInput = Partial<v.InferInput<typeof settingsSchema>>;

/** What every function of the API takes. */
export interface CommonOptions {
  /** The highest-ranking layer: over the config file and the environment, as flags are. */
  settings?: SettingsInput;
  /** A config file to use instead of the one found from `cwd`. */
  config?: string;
  /** A profile of the config file. */
  profile?: string;
  /** Where the config file is searched from and relative paths start (default: process.cwd()). */
  cwd?: string;
  /**
   * The environment variables read (SMS_SEND_ENDPOINT, SMS_SEND_PASSWORD, SMS_SEND_STATE_DIR, …);
   * default process.env, as for the command. Pass `{}` to read none.
   */
  env?: Readonly<Record<string, string | undefined>>;
  /** Send to a simulator started in this process for the call, not to the endpoint. */
  simulate?: boolean;
  /** Allow a plain-http endpoint that is not on this machine. */
  allowInsecure?: boolean;
  /** Receives the progress events the command's terminal display listens to. */
  events?: SendEmitter;
}

/** A campaign: the inputs and how they are read, as the flags of `sms-send send` say it. */
export interface CampaignOptions
  extends CommonOptions, Omit<CampaignChoices, 'dryRun' | 'simulate' | 'allowInsecure'> {
  /** CSV, JSON or NDJSON files, in order. */
  inputs: readonly string[];
  /** The message template (`{{column}}`), when the input has no text column. */
  text?: string;
  /** A file holding the template. */
  textFile?: string;
}

export interface SendOptions extends CampaignOptions {
  /**
   * Aborted: no new batch is taken, those in flight finish, the report and journal are flushed,
   * and send() rejects with InterruptedError (exit code 130). `resume: true` finishes the campaign.
   */
  signal?: AbortSignal;
}

export type PlanOptions = CampaignOptions;

export interface CheckOptions extends CommonOptions, Omit<CheckRequest, 'awaitMs'> {
  /** With `to`: wait this long (ms, or a duration such as `60s`) for the delivery report. */
  awaitDlr?: number | string;
}

/**
 * Sends a campaign: validates every record, then sends, journaled and resumable. Resolves with
 * the `--json` document `{summary}` when the run finished (`summary.exitCode` 0, or 1 when some
 * records were not accepted); rejects with the typed error otherwise.
 */
export async function send(options: SendOptions): Promise<SummaryDocument> {
  const run = await runOf(options, false);
  if (options.signal?.aborted) {
    throw new InterruptedError('interrupted before sending: nothing was sent');
  }
  const { campaign, result, simulated } = await sendCampaign(run, {
    planned: (planned) => warnOf(run, planned),
  });
  const document = summaryDocument(result, { campaign: campaign.identity.id, simulated });
  const error = endingError(result, document, (what, how) => `${what}. ${how} resume: true`);
  if (error) throw error;
  return document;
}

/**
 * The dry run: validates every record and says what a send would do, sending nothing. Resolves
 * with `{plan}`; rejects with a UsageError whose `document` holds the plan and the error when a
 * send would be refused (invalid input, a campaign already sent, …).
 */
export async function plan(options: PlanOptions): Promise<PlanDocument> {
  const run = await runOf(options, true);
  const planned = await planOnly(run);
  warnOf(run, planned);
  const document = planDocument(planned, run.settings.sendWindow);
  const problem = refusalError(planned, options.inputs) ?? planned.stateRefusal;
  if (problem) throw refusedPlan(problem, document);
  return document;
}

/**
 * Is the gateway reachable and are the credentials good? Sends nothing unless `to` is given.
 * Resolves with `{check}` (`check.ok` false when a canary's message was not delivered); rejects
 * with GatewayUnusableError (exit code 3) when the check failed.
 */
export async function check(options: CheckOptions = {}): Promise<CheckDocument> {
  const awaitMs = awaitOf(options);
  const events = options.events ?? new SendEmitter();
  const settings = await settingsOf(options, events);
  const access = gatewayAccess(settings, options);
  const result = await checkTarget(settings, access, options, { ...options, awaitMs });
  const { document, error } = checkEnding(result);
  if (error) throw error;
  return document;
}

/** `awaitDlr` in ms, checked with what it needs. */
function awaitOf(options: CheckOptions): number | undefined {
  if (options.text !== undefined && options.to === undefined) {
    throw new UsageError('text needs to: without a recipient, check sends no message');
  }
  if (options.dlrMix !== undefined && !options.simulate) {
    throw new UsageError('dlrMix needs simulate: it sets what the simulator reports');
  }
  if (options.awaitDlr === undefined) return undefined;
  const ms = parseDuration(options.awaitDlr);
  if (ms === undefined || ms <= 0) {
    throw new UsageError(`awaitDlr ${JSON.stringify(options.awaitDlr)}: must be a duration`);
  }
  if (options.to === undefined) {
    throw new UsageError('awaitDlr needs to: the canary sends one real test message');
  }
  return ms;
}

/** The settings pipeline of the command, with the options' settings as its highest layer. */
async function settingsOf(options: CommonOptions, events: SendEmitter): Promise<Settings> {
  const settings = await resolveSettings({
    cwd: options.cwd ?? process.cwd(),
    env: { ...(options.env ?? process.env) },
    flags: { ...options.settings },
    configPath: options.config,
    profile: options.profile,
  });
  for (const warning of settings.warnings) events.emit('warning', warning);
  return settings;
}

/**
 * The run the options ask for, built once: settings resolved, inputs and report found from `cwd`,
 * the template read, the caller's events and signal as the run's.
 */
async function runOf(options: SendOptions, dryRun: boolean): Promise<CampaignRun> {
  if (options.inputs.length === 0) throw new UsageError('no inputs: name at least one file');
  if (options.inputs.includes('-')) {
    throw new UsageError('standard input (-) is for the command line; name a file');
  }
  const events = options.events ?? new SendEmitter();
  const settings = await settingsOf(options, events);
  const from = (path: string) => fromCwd(path, options.cwd);
  const choices: CampaignChoices = { dryRun };
  for (const key of CHOICES)
    if (options[key] !== undefined) Object.assign(choices, { [key]: options[key] });
  if (options.report !== undefined) choices.report = from(options.report);
  if (options.html !== undefined) choices.html = from(options.html);
  // Inputs found from `cwd` are named by their full paths, so the default report lands beside them.
  const inputs = inputFiles(options.inputs.map(from));
  // A file named wrong is said before a missing endpoint: nothing could be sent from it anyway.
  await checkInputsPresent(inputs);
  return campaignRun({
    inputs,
    settings,
    choices,
    template: await loadTemplate(
      options.text,
      options.textFile === undefined ? undefined : from(options.textFile),
    ),
    io: { events, ...(options.signal ? { stop: options.signal } : {}) },
  });
}

/** The options that are the campaign's choices, by the same names. */
const CHOICES = [
  'simulate',
  'allowInsecure',
  'map',
  'inputFormat',
  'delimiter',
  'limit',
  'dedupe',
  'skipInvalid',
  'force',
  'resume',
  'retryUnknown',
  'wait',
] as const satisfies readonly (keyof CampaignChoices & keyof SendOptions)[];

/** The plan's warnings and what claiming the campaign found, as `warning` events. */
function warnOf(run: CampaignRun, planned: PlannedCampaign): void {
  for (const { file, message } of planned.plan.warnings) {
    run.io.events.emit('warning', `${file}: ${message}`);
  }
  for (const note of planned.notes) run.io.events.emit('warning', note);
}
