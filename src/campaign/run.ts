// One run of a campaign as one value: what is sent, how (the resolved settings, read in place, and
// the choices the caller made, under their own names), where to, and the run's events, clock and
// signals. Built once per call, from the command line's flags, a retry's plan or the API's
// options; every step reads it and none writes to it, and the layers below declare the narrow
// part they read.
import { BARE_PROGRAM, type Program } from '../shared/shell.js';
import { readFile } from 'node:fs/promises';
import { resolve as resolvePath } from 'node:path';
import type { Settings } from '../config/settings.js';
import type { InputFile } from '../input/open.js';
import type { HostCache } from '../journal/cache.js';
import { openState, type CampaignState } from '../journal/open-store.js';
import type { CampaignStore } from '../journal/store.js';
import type { Mapping } from '../message/columns.js';
import { SendEmitter } from '../send/events.js';
import { systemClock, type Clock } from '../shared/clock.js';
import { UsageError } from '../shared/errors.js';
import type { SimulatorOptions } from '../simulator/index.js';
import type { ValidationWorkers } from '../validate/types.js';
import { gatewayAccess, type GatewayAccess } from './target.js';
import type { FollowUp } from './types.js';

/** How a campaign is read and sent: send's flags by their names, and the API's options alike. */
export interface CampaignChoices {
  /** To the built-in simulator: a campaign of its own, apart from the same content sent for real. */
  simulate?: boolean;
  /** Allow credentials over plain http to an endpoint that is not on this machine. */
  allowInsecure?: boolean;
  map?: Mapping;
  inputFormat?: string;
  delimiter?: string;
  limit?: number;
  dedupe?: boolean;
  /**
   * Campaigns (IDs, or their start) whose recipients this one leaves out: every one they, or their
   * follow-ups, accepted or may have sent. Part of the campaign's identity.
   */
  skipSentBy?: readonly string[];
  skipInvalid?: boolean;
  /** `--report`, with {date}, {time} and {name} still to fill. */
  report?: string;
  force?: boolean;
  resume?: boolean;
  /**
   * Start the campaign, finish it when an earlier run left it unfinished (then it is a --resume),
   * or do nothing when it is finished: one command line a scheduler may run again and again.
   */
  once?: boolean;
  retryUnknown?: boolean;
  /** false: outside the send window, end at once (exit 5) instead of waiting. */
  wait?: boolean;
  /** Validate only: no state is claimed, nothing is spooled. */
  dryRun?: boolean;
  /** Also write the campaign's HTML page here when the run ends. */
  html?: string;
}

/** What a run reports to, and what moves it: its events, its clock, its stop and abort signals. */
export interface RunIo {
  events: SendEmitter;
  clock: Clock;
  /** Aborted: no new batches; those in flight finish, and the run ends interrupted (exit 130). */
  stop?: AbortSignal;
  /** Aborted: requests in flight are abandoned too (their records end `unknown`). */
  abort?: AbortSignal;
}

export interface CampaignRun {
  /** The inputs in order; standard input already copied to a file (it is read more than once). */
  readonly inputs: readonly InputFile[];
  readonly settings: Readonly<Settings>;
  /**
   * Where the campaign's state is kept: the store the settings name. The call the run is given to
   * (sendCampaign, planOnly) closes it when done, and the cache beside it.
   */
  readonly store: CampaignStore;
  /** This host's cache of the campaign: its spool, its timeline, its inputs' digests. */
  readonly cache: HostCache;
  /** The caller's choices: a copy, which no step changes. */
  readonly choices: Readonly<CampaignChoices>;
  /**
   * The gateway the run sends to, worked out (and refused, exit 2) when the run is made, before
   * anything is read; a dry run has none.
   */
  readonly access: GatewayAccess | undefined;
  /** `--text`, or the contents of `--text-file`. */
  readonly template?: string;
  /**
   * A follow-up campaign (`sms-send retry`): its own identity, only the chosen rows of the
   * original inputs (which must not have changed), new MessageIds, each row linked to the original.
   */
  readonly followUp?: FollowUp;
  /**
   * How the user runs sms-send (`sms-send`, `npx sms-send`), and where its state is: commands
   * named in refusals are written so.
   */
  readonly program: Program;
  /** When the run was asked for: {date} and {time} in names, validity periods counted from it. */
  readonly at: Date;
  readonly io: RunIo;
  /** The command line as the user ran it, credentials masked: the page shows how a run was sent. */
  readonly commandLine?: string;
  /**
   * The built-in simulator behind `simulate`: its faults, seed and delivery reports (the API's
   * callers and the tests; the command line has `sms-send simulate` for them).
   */
  readonly simulator?: SimulatorOptions;
  /** Tuning of the validation pass's worker threads; the tests force them on small files. */
  readonly workers?: ValidationWorkers;
}

/** The parts a caller gives; the run's clock (the system's unless given) is defaulted here, once. */
export interface RunParts extends Omit<
  CampaignRun,
  'io' | 'at' | 'program' | 'store' | 'cache' | 'access'
> {
  io?: Partial<RunIo>;
  program?: Program;
  /** The campaigns' store and this host's cache; those the settings name unless given. */
  state?: CampaignState;
}

export function campaignRun(parts: RunParts): CampaignRun {
  const { state: given, io: givenIo, ...rest } = parts;
  const choices = Object.freeze({ ...parts.choices });
  checkChoices(choices);
  // Where to send is known before anything is read: a missing endpoint is the problem to name.
  const access = choices.dryRun ? undefined : gatewayAccess(parts.settings, choices);
  const clock = givenIo?.clock ?? systemClock;
  const io: RunIo = { events: givenIo?.events ?? new SendEmitter(), clock };
  if (givenIo?.stop) io.stop = givenIo.stop;
  if (givenIo?.abort) io.abort = givenIo.abort;
  const { store, cache } = given ?? openState(parts.settings);
  return {
    ...rest,
    choices,
    store,
    cache,
    access,
    program: parts.program ?? BARE_PROGRAM,
    at: new Date(clock.now()),
    io,
  };
}

/** Choices that contradict each other are refused (exit 2) before anything is read. */
function checkChoices({ force, resume, once }: CampaignChoices): void {
  if (force && resume) throw new UsageError('--force and --resume contradict each other');
  if (force && once) throw new UsageError('--force and --once contradict each other');
}

/** The inputs as the caller named them, `-` for standard input (copied to `stdinPath`). */
export function inputFiles(
  inputs: readonly string[],
  options: { stdinPath?: string; cwd?: string } = {},
): InputFile[] {
  return inputs.map((input) => ({
    path: input === '-' ? options.stdinPath! : fromCwd(input, options.cwd),
    label: input,
  }));
}

/** A path the caller gave, found from `cwd` when one is given. */
export function fromCwd(path: string, cwd: string | undefined): string {
  return cwd === undefined ? path : resolvePath(cwd, path);
}

/** `--text` or `--text-file` (its last newline dropped), never both. */
export async function loadTemplate(
  text: string | undefined,
  textFile: string | undefined,
): Promise<string | undefined> {
  if (text !== undefined && textFile !== undefined) {
    throw new UsageError('give --text or --text-file, not both');
  }
  if (textFile === undefined) return text;
  try {
    return (await readFile(textFile, 'utf8')).replace(/\r?\n$/, '');
  } catch {
    throw new UsageError(`cannot read --text-file ${textFile}`);
  }
}
