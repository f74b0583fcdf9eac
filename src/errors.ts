// Errors that end a run; each carries the exit code of DESIGN.md §5 so only main.ts maps them.

/** Base of every error that ends a run with a known exit code. */
export class SmsSendError extends Error {
  readonly exitCode: number;
  /** A short machine-readable name, used by `--json` error output. */
  readonly code: string;
  constructor(message: string, exitCode: number, code: string) {
    super(message);
    this.name = new.target.name;
    this.exitCode = exitCode;
    this.code = code;
  }
}

/** Bad usage, config or input: nothing was sent (exit 2). */
export class UsageError extends SmsSendError {
  constructor(message: string, code = 'usage') {
    super(message, 2, code);
  }
}

/** The gateway could not be used at all: unreachable, credentials refused, too many failures (exit 3). */
export class GatewayUnusableError extends SmsSendError {
  constructor(message: string, code = 'gateway-unusable') {
    super(message, 3, code);
  }
}

/** Another run holds this campaign's lock (exit 4). */
export class LockedError extends SmsSendError {
  constructor(message: string) {
    super(message, 4, 'locked');
  }
}

/** The operator interrupted the run; report and journal are flushed (exit 130). */
export class InterruptedError extends SmsSendError {
  constructor(message: string) {
    super(message, 130, 'interrupted');
  }
}
