// Exit codes, named once, and the errors that end a run; each error carries its code so only main.ts maps them.
import { constants as osConstants } from 'node:os';

/** docs/architecture.md#exit-codes: the same codes for every command. */
export const ExitCode = {
  /** Everything accepted, or a dry run or check passed. */
  ok: 0,
  /** The run finished, but some records were not accepted. */
  notAllAccepted: 1,
  /** Usage, config or input error, or a campaign already sent or unfinished: nothing was sent. */
  usage: 2,
  /** The gateway could not be used: unreachable, credentials refused, too many failures. */
  gatewayUnusable: 3,
  /** Another run holds the campaign's (or the report's) lock. */
  locked: 4,
  /** Outside the send window with --no-wait (nothing sent), or stopped when it closed. */
  outsideWindow: 5,
  /** Stopped because campaign state could not be written mid-send (disk full, read-only). */
  stateUnwritable: 6,
  /** An unexpected internal error: a bug. */
  internal: 70,
  /** Interrupted by the operator; --resume finishes the campaign. */
  interrupted: 130,
} as const;

export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/** What each exit code means, as `--help` and the README list them; one entry per code. */
export const EXIT_CODE_MEANING: Record<ExitCode, string> = {
  0: 'everything accepted (or: a dry run or check passed)',
  1: 'the run finished but some records were rejected, invalid, failed or unknown',
  2: 'usage, config or input error, or the campaign was already sent or is unfinished; nothing was sent',
  3: 'the gateway could not be used: unreachable, credentials refused, or too many request-level failures in a row',
  4: "another run holds this campaign's lock; nothing was sent",
  5: 'outside the send window (--no-wait), or stopped when it closed; --resume continues',
  6: 'stopped because campaign state could not be written (disk full, read-only); --resume continues once it can be',
  70: 'an unexpected internal error (a bug; please report it)',
  130: 'interrupted; --resume finishes the campaign',
};

/** One thing wrong with the input (or a file of it), as `--json` error documents list them. */
export interface Problem {
  file: string;
  /** The line in the file, when the problem is a record's or a line's. */
  line?: number;
  /** The record's position in the campaign (1-based, across all input files). */
  row?: number;
  /** The field (recipient `to`, `text`, or a RestSmsMessageReq field) the problem is with. */
  field?: string;
  reason: string;
}

/**
 * The command that moves the user on from a refusal, as a change to the command line they ran
 * (flags dropped and added), or as another command's arguments. The command line writes it out
 * the way the user runs the program; the message says the same in words for machines.
 */
export interface NextStep {
  /** What the command does, to come before "with:", e.g. "Finish it". */
  say: string;
  drop?: readonly string[];
  add?: readonly string[];
  /** Another command altogether, e.g. `['report', path]`. */
  args?: readonly string[];
}

/**
 * Every `code` an error document can carry (docs/json.md lists them, and a test holds the two
 * together): a short name for scripts to branch on.
 */
export const ERROR_CODES = [
  'already-sent',
  'bad-campaign',
  'bad-endpoint',
  'ca-file',
  'campaign-ambiguous',
  'campaign-unknown',
  'check-failed',
  'config',
  'credentials-refused',
  'empty-input',
  'gateway-unusable',
  'input',
  'input-changed',
  'insecure-endpoint',
  'internal',
  'interrupted',
  'invalid-input',
  'journal-version',
  'locked',
  'no-credentials',
  'no-delivery-report',
  'no-endpoint',
  'no-report',
  'not-a-report',
  'not-all-accepted',
  'not-confirmed',
  'not-retryable',
  'nothing-to-resume',
  'outside-window',
  'over-max-cost',
  'recipients-unknown',
  'report-exists',
  'report-unwritable',
  'state-corrupt',
  'state-permission',
  'state-refused',
  'state-unwritable',
  'state-version',
  'superseded',
  'suppress',
  'unfinished',
  'usage',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

/** Base of every error that ends a run with a known exit code. */
export class SmsSendError extends Error {
  readonly exitCode: ExitCode;
  /** A short machine-readable name, used by `--json` error output. */
  readonly code: ErrorCode;
  /**
   * Under --json, the document to print instead of a bare `{"error": …}` (a run summary or a plan
   * that explains the failure); it should carry the exit code itself.
   */
  readonly document?: object;
  /** What was wrong with the input, one entry per problem, for `--json` (the message has it all). */
  readonly problems?: readonly Problem[];
  /** The command that moves the user on, when there is one to run as it stands. */
  next?: NextStep;
  constructor(
    message: string,
    exitCode: ExitCode,
    code: ErrorCode,
    document?: object,
    problems?: readonly Problem[],
  ) {
    super(message);
    this.name = new.target.name;
    this.exitCode = exitCode;
    this.code = code;
    this.document = document;
    this.problems = problems;
  }
}

/** `error` with the command that moves the user on from it. */
export function leadingTo<E extends SmsSendError>(error: E, next: NextStep): E {
  error.next = next;
  return error;
}

/**
 * The run finished but not every record was accepted (exit 1). Normally a return code; thrown only
 * when the summary was not printed (--quiet), so main.ts still says why the run failed.
 */
export class NotAllAcceptedError extends SmsSendError {
  constructor(message: string) {
    super(message, ExitCode.notAllAccepted, 'not-all-accepted');
  }
}

/** Bad usage, config or input: nothing was sent (exit 2). */
export class UsageError extends SmsSendError {
  constructor(
    message: string,
    code: ErrorCode = 'usage',
    document?: object,
    problems?: readonly Problem[],
  ) {
    super(message, ExitCode.usage, code, document, problems);
  }
}

/** The gateway could not be used at all: unreachable, credentials refused, too many failures (exit 3). */
export class GatewayUnusableError extends SmsSendError {
  constructor(message: string, code: ErrorCode = 'gateway-unusable', document?: object) {
    super(message, ExitCode.gatewayUnusable, code, document);
  }
}

/**
 * The run a lock refusal met, so a caller that is not a send (a delivery-report fold) can say its
 * own words around it; `seenAlive` is false for one on another host, whose process cannot be seen.
 */
export interface LockHolder {
  pid: number;
  host: string;
  since: string;
  seenAlive: boolean;
}

/** Another run holds this campaign's lock (exit 4). */
export class LockedError extends SmsSendError {
  constructor(
    message: string,
    readonly holder?: LockHolder,
  ) {
    super(message, ExitCode.locked, 'locked');
  }
}

/** Outside the send window: nothing sent (--no-wait), or the run stopped when it closed (exit 5). */
export class OutsideWindowError extends SmsSendError {
  constructor(message: string, document?: object) {
    super(message, ExitCode.outsideWindow, 'outside-window', document);
  }
}

/**
 * Campaign state could not be written mid-send (a full disk, a read-only or failing one): the run
 * stopped; what was settled is kept, and --resume continues once there is room (exit 6).
 */
export class StateUnwritableError extends SmsSendError {
  constructor(message: string, document?: object) {
    super(message, ExitCode.stateUnwritable, 'state-unwritable', document);
  }
}

/** The operator interrupted the run; report and journal are flushed (exit 130). */
export class InterruptedError extends SmsSendError {
  constructor(message: string, document?: object) {
    super(message, ExitCode.interrupted, 'interrupted', document);
  }
}

/** Errno numbers by name, the first name of each number (EAGAIN before EWOULDBLOCK). */
const ERRNO_NAMES = new Map<number, string>();
for (const [name, number] of Object.entries(osConstants.errno)) {
  if (!ERRNO_NAMES.has(number)) ERRNO_NAMES.set(number, name);
}

/**
 * Words for errnos libuv has no name for, so Node reports them as `Unknown system error -122`
 * (or `UNKNOWN` from a synchronous call) on every supported line: EDQUOT is the one a disk gives.
 */
const UNNAMED_WORDS: Record<string, string> = { EDQUOT: 'disk quota exceeded' };

/**
 * A system error's code by name (`ENOSPC`), also where Node knows only its number: errno -122
 * is EDQUOT whatever Node called it. Undefined for an error that is not a system call's.
 */
export function systemErrorCode(error: unknown): string | undefined {
  const { code, errno } = (error ?? {}) as NodeJS.ErrnoException;
  if (typeof code === 'string' && /^E[A-Z0-9]+$/.test(code)) return code;
  return typeof errno === 'number' ? ERRNO_NAMES.get(Math.abs(errno)) : undefined;
}

/**
 * The same error with its code named and its message in words where Node could not (errno 122,
 * EDQUOT): every disk operation's failure passes here, so the code that meets it sees the name.
 */
export function namedSystemError<E>(error: E): E {
  const code = systemErrorCode(error);
  const failure = error as NodeJS.ErrnoException;
  if (code === undefined || failure.code === code || !(error instanceof Error)) return error;
  const words = UNNAMED_WORDS[code] ?? code;
  failure.message = failure.message.replace(
    /^(Unknown system error -?\d+|UNKNOWN): [^,]*/,
    `${code}: ${words}`,
  );
  failure.code = code;
  return error;
}

/**
 * A system error in words, with its code: `no space left on device (ENOSPC)`, `read-only file
 * system (EROFS)`. Node's own message leads with the code and ends with the call and the path.
 */
export function describeSystemError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = systemErrorCode(error);
  if (code === undefined) return error.message;
  const words = namedSystemError(error)
    .message.replace(new RegExp(`^${code}: `), '')
    .replace(/, \w+( '.*')?$/, '')
    .trim();
  return words === '' || words === code ? code : `${words} (${code})`;
}

/**
 * What to do about a disk's refusal to write in `where` ("the state directory", a folder), by what
 * the disk said: a full disk wants room, a read-only one rights, a failing one a look at the disk.
 */
export function diskAdvice(error: unknown, where: string): string {
  const code = systemErrorCode(error);
  if (code === 'ENOSPC' || code === 'EDQUOT') return `Make room in ${where} and run again.`;
  if (code === 'EIO') {
    return (
      `The disk under ${where} failed a write (an input/output error, not a full disk): check it ` +
      '(the system log says more) or use a folder on another disk, then run again.'
    );
  }
  if (code === 'EFBIG') return `A file in ${where} grew past what its file system allows.`;
  return `Make ${where} writable for this user (it is read-only, or another user's) and run again.`;
}

/** Errors of a disk that cannot take a write: full, over quota, read-only, failing, too large. */
const DISK_ERRORS = new Set(['ENOSPC', 'EDQUOT', 'EROFS', 'EIO', 'EFBIG', 'EACCES', 'EPERM']);

/** Whether an error is a disk's refusal to take a write (by its name or its errno number). */
export function isDiskError(error: unknown): boolean {
  const code = systemErrorCode(error);
  return code !== undefined && DISK_ERRORS.has(code);
}

/**
 * A store of campaign state shared by hosts (a database) failed, in its own words: it refused this
 * run (its credentials, its rights, a database that does not exist: the same settings are refused
 * again) or did not answer (cut off, silent, restarting: the same command may pass later). Not an
 * SmsSendError: what a run ends with depends on whether it had sent anything (unsentStateError
 * before the first batch; the send's stop after it).
 */
export class StateStoreError extends Error {
  constructor(
    message: string,
    /** Refused for its settings: retrying them does not help. */
    readonly refused: boolean,
    /** What to do, as a sentence: the grant, the password, the database to create. */
    readonly advice: string,
    options?: { cause?: unknown; code?: 'state-refused' | 'state-permission' },
  ) {
    super(message, options);
    this.name = 'StateStoreError';
    this.code = options?.code ?? 'state-refused';
  }

  /** The refusal's code for scripts: `state-permission` for a missing grant. */
  readonly code: 'state-refused' | 'state-permission';
}

/**
 * A failure to write campaign state before anything was sent, as the stop it is: a disk's or a
 * refusing database's is a refusal (exit 2); a database that did not answer, exit 6, to be run
 * again as it was once it answers. Undefined when `error` is neither.
 */
export function unsentStateError(error: unknown): SmsSendError | undefined {
  if (error instanceof StateStoreError) return unsentStoreError(error);
  if (error instanceof SmsSendError || !isDiskError(error)) return undefined;
  const refusal = new UsageError(
    `campaign state could not be written: ${describeSystemError(error)}; nothing was sent. ` +
      diskAdvice(error, 'the state directory'),
    'state-unwritable',
  );
  refusal.cause = error;
  return refusal;
}

function unsentStoreError(error: StateStoreError): SmsSendError {
  if (!error.refused) {
    const stop = storeErrorAs(error, `${error.message}; nothing was sent.`);
    return leadingTo(stop, { say: 'Once it answers, run it again' });
  }
  return storeErrorAs(error, `${error.message}; nothing was sent. ${error.advice}`);
}

/**
 * A state store's failure where nothing is sent (a list of campaigns, a report read from it): its
 * refusal exit 2, a database that did not answer exit 6, each with what to do.
 */
export function stateStoreFailure(error: StateStoreError): SmsSendError {
  return storeErrorAs(error, `${error.message}. ${error.advice}`);
}

function storeErrorAs(error: StateStoreError, message: string): SmsSendError {
  const typed = error.refused
    ? new UsageError(message, error.code)
    : new StateUnwritableError(message);
  typed.cause = error;
  return typed;
}
