// What the workers of one sendLoop() share: the stop, the send window, the breaker's count, the one
// outage wait, and the rows of records that end without being sent.
import type { Answer, Verdict } from '../gateway/outcome.js';
import type { MessageResult, RowResult } from '../message/outcome.js';
import type { Entry } from '../validate/entries.js';
import type { Clock } from '../shared/clock.js';
import { backoffDelay } from '../shared/backoff.js';
import type { SendEmitter } from './events.js';
import { RateLimiter } from './rate.js';
import type { LoopGateway, LoopRun, MessageEntry, SendOutcome } from './types.js';

/** How a record a stop, a Ctrl-C or a closing window left unsent is worded: a message still to send. */
export const NOT_SENT_PREFIX = 'not sent:';
export const WINDOW_CLOSED = `${NOT_SENT_PREFIX} the send window closed; --resume sends it`;

/** A hook's failure to record state, its message the whole reason the run stops with. */
export class StateWriteError extends Error {
  /** Another run took the campaign over: the state is fine, but no longer this run's. */
  constructor(
    message: string,
    readonly takenOver = false,
  ) {
    super(message);
  }
}

export class SendState {
  readonly limiter: RateLimiter;
  readonly maxFailures: number;
  readonly graceMs: number;
  readonly clock: Clock;
  consecutiveFailures = 0;
  batchNumber = 0;
  stopped: SendOutcome['stopped'];
  // Whether any request of this run got an HTTP answer: none at all means the gateway was never
  // reached (refused, DNS, TLS, timeouts), which is exit 3, not a run with failed records.
  reached = false;
  /** sms-send's simulator answered: the run was a rehearsal, whatever its endpoint. */
  rehearsal = false;
  /** The `unreachable` event was emitted: once a run. */
  private saidUnreachable = false;
  attempted = false;
  lastReason = '';
  /** The outage wait in progress, shared by every worker. */
  outage: Promise<boolean> | undefined;
  windowClosed = false;
  /** Records this run did not send because it stopped, was interrupted or its window closed. */
  notSent = 0;
  private readonly whenInterrupted: Promise<void>;

  readonly events: SendEmitter;

  constructor(
    readonly run: LoopRun,
    readonly gateway: LoopGateway,
  ) {
    this.events = run.io.events;
    this.clock = run.io.clock;
    // The rate limit waits on a monotonic clock of its own unless a test brings a limiter.
    this.limiter = gateway.limiter ?? new RateLimiter(run.settings.rate);
    this.maxFailures = gateway.maxConsecutiveFailures ?? 5;
    this.graceMs = run.settings.outageGraceMs;
    this.whenInterrupted = new Promise<void>((resolve) => {
      for (const signal of [run.io.stop, run.io.abort]) {
        signal?.addEventListener('abort', () => resolve(), { once: true });
      }
    });
  }

  interrupted(): boolean {
    return this.run.io.stop?.aborted === true || this.run.io.abort?.aborted === true;
  }

  halted(): boolean {
    return this.stopped !== undefined || this.interrupted() || this.windowClosed;
  }

  /** Asks the send window before anything is sent, again included: once closed, it stays so. */
  windowShut(): boolean {
    const open = this.gateway.windowOpen;
    if (open && !this.windowClosed && !open()) {
      this.windowClosed = true;
      this.events.emit('windowClosed');
    }
    return this.windowClosed;
  }

  stop(reason: string, authRefused: boolean, stateUnwritable = false, takenOver = false): void {
    if (this.stopped) return;
    this.stopped = stateUnwritable
      ? { reason, authRefused, stateUnwritable, ...(takenOver ? { takenOver } : {}) }
      : { reason, authRefused };
    this.events.emit('stop', this.stopped);
  }

  /**
   * Awaits a journal hook. A write that fails (a full disk) stops the run: no batch may go out
   * whose intent could not be recorded (docs/architecture.md#journal-and-resume). False when it
   * failed.
   */
  async record(write: () => Promise<void> | undefined): Promise<boolean> {
    try {
      await write();
      return true;
    } catch (error) {
      const why =
        error instanceof StateWriteError
          ? error.message
          : `campaign state could not be written: ${error instanceof Error ? error.message : String(error)}`;
      this.stop(why, false, true, error instanceof StateWriteError && error.takenOver);
      return false;
    }
  }

  /** What a record this run did not send is reported as, by why the run ended. */
  notSentResult(): MessageResult {
    if (this.stopped) {
      return {
        outcome: 'failed',
        error: `${NOT_SENT_PREFIX} the run stopped (${this.stopped.reason})`,
      };
    }
    if (this.interrupted()) {
      return {
        outcome: 'skipped',
        error: `${NOT_SENT_PREFIX} the run was interrupted; --resume sends it`,
      };
    }
    return { outcome: 'skipped', error: WINDOW_CLOSED };
  }

  /** Reports a batch that was not sent, because the run ended before it went out. */
  leaveUnsent(batch: readonly MessageEntry[]): void {
    const result = this.notSentResult();
    for (const entry of batch) this.events.emit('record', toRow(entry, result, 0));
    this.notSent += batch.length;
  }

  /** Waits (Retry-After, backoff, outage probes) end early on Ctrl-C, however long they were to be. */
  pause(ms: number): Promise<void> {
    return this.interrupted()
      ? Promise.resolve()
      : Promise.race([this.clock.sleep(ms), this.whenInterrupted]);
  }

  /** An answer, or a request that may have been processed: the gateway was reached. */
  noteReached(answer: Answer): void {
    if (answer.httpStatus !== undefined || answer.verdict.kind === 'unknown') this.reached = true;
    if (answer.simulator) this.rehearsal = true;
  }

  /** A first refused connection or unknown host of a run that never reached the gateway: said once. */
  noteUnreachable(verdict: Verdict): void {
    if (verdict.kind !== 'retry' || !verdict.unreachable || this.reached || this.saidUnreachable) {
      return;
    }
    this.saidUnreachable = true;
    this.events.emit('unreachable', { reason: verdict.reason });
  }

  /** Reports a batch that surely never got through as not sent: --resume sends it. */
  leaveForResume(batch: readonly MessageEntry[]): void {
    const result: MessageResult = { outcome: 'skipped', error: WINDOW_CLOSED };
    for (const entry of batch) this.events.emit('record', toRow(entry, result, 0));
    this.notSent += batch.length;
  }

  /**
   * A batch failed (or its fate is unknown): the breaker counts it. Refused credentials stop the
   * run; refusals in a row will not pass by waiting, so the breaker stops it; unavailable or
   * unanswered in a row, new batches wait while the gateway is probed.
   */
  countFailure(verdict: Exclude<Verdict, { kind: 'results' }>): void {
    this.consecutiveFailures++;
    const tripped = this.consecutiveFailures >= this.maxFailures;
    const last = this.reached
      ? `${this.consecutiveFailures} requests in a row failed; last: ${verdict.reason}`
      : `the gateway was never reached: ${verdict.reason}`;
    if (verdict.kind === 'failed' && (verdict.authRefused || verdict.stop === true)) {
      this.stop(verdict.reason, verdict.authRefused);
    } else if (tripped && (verdict.kind === 'failed' || this.graceMs <= 0)) this.stop(last, false);
    else if (tripped && !this.halted()) void this.waitForGateway(last);
  }

  /**
   * One wait shared by every worker: probe the gateway with an empty RestSmsRequest (it sends and
   * bills nothing), with backoff, until it answers (true) or the grace runs out (false, the run
   * stops). Refused credentials stop at once.
   */
  waitForGateway(reason: string): Promise<boolean> {
    this.outage ??= this.probeUntilAnswered(reason).finally(() => (this.outage = undefined));
    return this.outage;
  }

  private async probeUntilAnswered(reason: string): Promise<boolean> {
    const { gateway, graceMs } = this;
    this.events.emit('outage', { reason, graceMs });
    const started = this.clock.now();
    for (let attempt = 1; ; attempt++) {
      const left = graceMs - (this.clock.now() - started);
      await this.pause(
        Math.max(0, Math.min(left, 250 + backoffDelay(attempt, undefined, gateway.random))),
      );
      if (this.interrupted()) return false;
      // A gateway that said 429 asked for quiet: the probe keeps its Retry-After too.
      await this.limiter.acquire(0);
      const probe = await gateway.poster.post([], [], this.run.io.abort);
      if (probe.throttled && probe.verdict.kind === 'retry') {
        this.limiter.throttled(probe.verdict.retryAfterMs);
      }
      this.noteReached(probe);
      if (probe.verdict.kind === 'results') {
        this.consecutiveFailures = 0;
        this.events.emit('recovered', { afterMs: this.clock.now() - started });
        return true;
      }
      if (probe.verdict.kind === 'failed' && (probe.verdict.authRefused || probe.verdict.stop)) {
        this.stop(probe.verdict.reason, probe.verdict.authRefused);
        return false;
      }
      if (this.clock.now() - started >= graceMs) {
        const seconds = Math.round(graceMs / 100) / 10;
        this.stop(
          `the gateway stayed unusable for ${seconds}s (${reason}; last probe: ${probe.verdict.reason})`,
          false,
        );
        return false;
      }
    }
  }
}

/** Built field by field: spreading results into rows was a hot spot at 100,000 messages. */
export function toRow(entry: Entry, result: MessageResult, attempts: number): RowResult {
  const row: RowResult = {
    row: entry.row,
    to: entry.to,
    messageId: entry.messageId,
    outcome: result.outcome,
    attempts,
  };
  if (result.statusCode !== undefined) row.statusCode = result.statusCode;
  if (result.statusDescription !== undefined) row.statusDescription = result.statusDescription;
  if (result.transactionId !== undefined) row.transactionId = result.transactionId;
  if (result.extraInfo !== undefined) row.extraInfo = result.extraInfo;
  if (result.error !== undefined) row.error = result.error;
  if (entry.segments !== undefined) row.segments = entry.segments;
  if (entry.encoding !== undefined) row.encoding = entry.encoding;
  if (entry.normalized !== undefined) row.normalized = entry.normalized;
  return row;
}
