// The send loop: batches from a stream, a fixed number of workers, retries, rate, circuit breaker.
import type { Answer } from '../gateway/outcome.js';
import type { MessageResult, RowResult } from '../message/outcome.js';
import type { Entry } from '../validate/entries.js';
import { backoffDelay } from './backoff.js';
import { batches } from './batcher.js';
import type { SendEmitter } from './events.js';
import { RateLimiter } from './rate.js';

type MessageEntry = Extract<Entry, { kind: 'message' }>;

/**
 * The one thing send() needs of the gateway client: a batch POSTed, its answer classified and
 * already free of secrets. Tests may pass another implementation.
 */
export interface Poster {
  post(
    messages: readonly string[],
    messageIds: readonly string[],
    signal?: AbortSignal,
  ): Promise<Answer>;
}

/** Awaited around each request, so a journal can make intent and result durable in order. */
export interface SendHooks {
  beforeSend?(batch: number, rows: readonly number[]): Promise<void>;
  /** The attempt surely did not reach the gateway: the batch is not in flight until sent again. */
  notSent?(batch: number, rows: readonly number[]): Promise<void>;
  afterResult?(batch: number, rows: readonly RowResult[]): Promise<void>;
}

export interface SendOptions {
  poster: Poster;
  batchSize: number;
  concurrency: number;
  retries: number;
  /** Also resend batches whose outcome is unknown (may deliver twice). */
  retryUnknown?: boolean;
  /** Request-level failures in a row that open the circuit breaker. */
  maxConsecutiveFailures?: number;
  /**
   * How long an open breaker (or a batch that surely did not get through) waits for the gateway,
   * probing it with an empty request, before the run stops; 0 (the default here) never waits.
   */
  outageGraceMs?: number;
  /** The clock the grace is measured with; injectable so tests need not wait. */
  now?: () => number;
  limiter?: RateLimiter;
  hooks?: SendHooks;
  /** Once aborted, no new batch is taken; batches in flight finish. */
  stopSignal?: AbortSignal;
  /** Once aborted, requests in flight are abandoned (their records become unknown). */
  abortSignal?: AbortSignal;
  /**
   * Asked before each new batch is taken: once it says no, the send window has closed, no new
   * batch is taken and those in flight finish.
   */
  windowOpen?: () => boolean;
  /** Waits before a retry; injectable so tests need not sleep. */
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
}

export interface SendOutcome {
  /** Why the run stopped early, when it did; unsent records were reported `failed`. */
  stopped?: { reason: string; authRefused: boolean };
  /** True when a stop or abort signal ended the run early. */
  interrupted: boolean;
  /** True when the send window closed before every record was sent. */
  windowClosed?: boolean;
  /** Records never attempted because the run stopped or was interrupted (`failed` or `skipped`). */
  notSent: number;
}

const WINDOW_CLOSED = 'not sent: the send window closed; --resume sends it';

/** Outage waits one batch may sit through before it is reported `failed`. */
const MAX_OUTAGE_WAITS = 3;

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** `entries` comes in chunks (any size): the stream costs one await per chunk, not per record. */
export async function send(
  entries: AsyncIterable<readonly Entry[]>,
  options: SendOptions,
  events: SendEmitter,
): Promise<SendOutcome> {
  const sleep = options.sleep ?? defaultSleep;
  const limiter = options.limiter ?? new RateLimiter(undefined);
  const maxFailures = options.maxConsecutiveFailures ?? 5;
  const graceMs = options.outageGraceMs ?? 0;
  const now = options.now ?? Date.now;
  let consecutiveFailures = 0;
  let batchNumber = 0;
  let stopped: SendOutcome['stopped'];
  // Whether any request of this run got an HTTP answer: none at all means the gateway was never
  // reached (refused, DNS, TLS, timeouts), which is exit 3, not a run with failed records.
  let reached = false;
  let attempted = false;
  let lastReason = '';
  let outage: Promise<boolean> | undefined;
  let windowClosed = false;
  // Waits (Retry-After, backoff, outage probes) end early on Ctrl-C, however long they were to be.
  const pause = (ms: number): Promise<void> =>
    interrupted() ? Promise.resolve() : Promise.race([sleep(ms), whenInterrupted]);
  const whenInterrupted = new Promise<void>((resolve) => {
    for (const signal of [options.stopSignal, options.abortSignal]) {
      signal?.addEventListener('abort', () => resolve(), { once: true });
    }
  });

  const pending = batches(entries, options.batchSize, (entry) =>
    events.emit('record', toRow(entry, entry.result, entry.attempts ?? 0), entry.earlier),
  )[Symbol.asyncIterator]();
  const interrupted = () =>
    options.stopSignal?.aborted === true || options.abortSignal?.aborted === true;
  const halted = () => stopped !== undefined || interrupted() || windowClosed;
  /** Asks the send window before anything is sent, again included: once closed, it stays so. */
  const windowShut = (): boolean => {
    if (options.windowOpen && !windowClosed && !options.windowOpen()) {
      windowClosed = true;
      events.emit('windowClosed');
    }
    return windowClosed;
  };
  // Records this run did not send because it stopped, was interrupted or its window closed.
  let notSent = 0;

  function stop(reason: string, authRefused: boolean): void {
    if (stopped) return;
    stopped = { reason, authRefused };
    events.emit('stop', stopped);
  }

  /**
   * One wait shared by every worker: probe the gateway with an empty RestSmsRequest (it sends and
   * bills nothing), with backoff, until it answers (true) or the grace runs out (false, the run
   * stops). Refused credentials stop at once.
   */
  function waitForGateway(reason: string): Promise<boolean> {
    outage ??= (async () => {
      events.emit('outage', { reason, graceMs });
      const started = now();
      for (let attempt = 1; ; attempt++) {
        const left = graceMs - (now() - started);
        await pause(
          Math.max(0, Math.min(left, 250 + backoffDelay(attempt, undefined, options.random))),
        );
        if (interrupted()) return false;
        // A gateway that said 429 asked for quiet: the probe keeps its Retry-After too.
        await limiter.acquire(0);
        const probe = await options.poster.post([], [], options.abortSignal);
        if (probe.throttled && probe.verdict.kind === 'retry') {
          limiter.throttled(probe.verdict.retryAfterMs);
        }
        if (probe.httpStatus !== undefined || probe.verdict.kind === 'unknown') reached = true;
        if (probe.verdict.kind === 'results') {
          consecutiveFailures = 0;
          events.emit('recovered', { afterMs: now() - started });
          return true;
        }
        if (probe.verdict.kind === 'failed' && probe.verdict.authRefused) {
          stop(probe.verdict.reason, true);
          return false;
        }
        if (now() - started >= graceMs) {
          const seconds = Math.round(graceMs / 100) / 10;
          stop(
            `the gateway stayed unusable for ${seconds}s (${reason}; last probe: ${probe.verdict.reason})`,
            false,
          );
          return false;
        }
      }
    })().finally(() => (outage = undefined));
    return outage;
  }

  /** Reports a batch that surely never got through as not sent: --resume sends it. */
  function leaveForResume(batch: readonly MessageEntry[]): void {
    const result: MessageResult = { outcome: 'skipped', error: WINDOW_CLOSED };
    for (const entry of batch) events.emit('record', toRow(entry, result, 0));
    notSent += batch.length;
  }

  async function sendBatch(batch: MessageEntry[]): Promise<void> {
    const number = ++batchNumber;
    const json = batch.map((entry) => entry.json);
    const messageIds = batch.map((entry) => entry.messageId);
    const batchRows = batch.map((entry) => entry.row);
    // Whether the journal holds this batch as sent: written before each attempt, taken back
    // after one that surely did not reach the gateway, so a kill while waiting to retry leaves
    // the batch unsent (sent again on resume), not `unknown`.
    let recorded = false;
    let attempts = 0;
    // Attempts since the last outage wait: a batch sent again after one gets its retries anew.
    let tries = 0;
    let outageWaits = 0;
    // Once an attempt may have reached the gateway, a later failure cannot be called `failed`.
    let ambiguous = false;
    for (;;) {
      await limiter.acquire(batch.length);
      if (!recorded) await options.hooks?.beforeSend?.(number, batchRows);
      recorded = true;
      attempts++;
      tries++;
      const answer = await options.poster.post(json, messageIds, options.abortSignal);
      attempted = true;
      // An answer, or a request that may have been processed: the gateway was reached.
      if (answer.httpStatus !== undefined || answer.verdict.kind === 'unknown') reached = true;
      let verdict = answer.verdict;
      if (verdict.kind === 'unknown') ambiguous = true;
      if (verdict.kind === 'unknown' && options.retryUnknown) {
        verdict = { kind: 'retry', reason: `${verdict.reason}; resending (--retry-unknown)` };
      }
      if (verdict.kind === 'retry' && !ambiguous) {
        await options.hooks?.notSent?.(number, batchRows);
        recorded = false;
      }
      if (verdict.kind === 'retry') {
        if (answer.throttled) limiter.throttled(verdict.retryAfterMs);
        if (tries <= options.retries && !halted() && !windowShut()) {
          const delayMs = verdict.retryAfterMs ?? backoffDelay(tries, undefined, options.random);
          events.emit('retry', {
            batch: number,
            attempt: attempts,
            delayMs,
            reason: verdict.reason,
          });
          await pause(delayMs);
          // Ctrl-C during the wait: the batch ends here as what it is (surely not processed).
          if (!interrupted() && !windowShut()) continue;
        }
      }
      // The window closed on a batch that surely never got through: it is left for --resume, as
      // the batches not taken are (the journal has taken it back already).
      if (verdict.kind === 'retry' && !ambiguous && windowShut()) {
        leaveForResume(batch);
        return;
      }
      let results: MessageResult[];
      if (verdict.kind === 'results') {
        consecutiveFailures = 0;
        limiter.succeeded();
        results = verdict.results;
      } else {
        lastReason = verdict.reason;
        // Retries ran out on a request the gateway surely did not process (unavailable, 429,
        // refused, reset before sending): wait for the gateway and send this batch again, rather
        // than leave a person to --resume after a blip. Bounded, for a gateway that answers the
        // probe but never this batch.
        const waitable = graceMs > 0 && !ambiguous && !halted();
        if (verdict.kind === 'retry' && waitable && outageWaits < MAX_OUTAGE_WAITS) {
          outageWaits++;
          // A send again after the wait asks the window first, as every send does.
          if ((await waitForGateway(verdict.reason)) && !windowShut()) {
            tries = 0;
            continue;
          }
          if (windowClosed) {
            leaveForResume(batch);
            return;
          }
        }
        const outcome = verdict.kind === 'unknown' || ambiguous ? 'unknown' : 'failed';
        const note = attempts > 1 ? ` (after ${attempts} attempts)` : '';
        results = batch.map(() => ({ outcome, error: verdict.reason + note }));
        consecutiveFailures++;
        const tripped = consecutiveFailures >= maxFailures;
        const last = reached
          ? `${consecutiveFailures} requests in a row failed; last: ${verdict.reason}`
          : `the gateway was never reached: ${verdict.reason}`;
        if (verdict.kind === 'failed' && verdict.authRefused) stop(verdict.reason, true);
        // Refusals in a row will not pass by waiting: the breaker stops the run.
        else if (tripped && (verdict.kind === 'failed' || graceMs <= 0)) stop(last, false);
        // Unavailable or unanswered in a row: new batches wait while the gateway is probed.
        else if (tripped && !halted()) void waitForGateway(last);
      }
      const rows: RowResult[] = batch.map((entry, i) => toRow(entry, results[i]!, attempts));
      await options.hooks?.afterResult?.(number, rows);
      events.emit('batch', {
        batch: number,
        size: batch.length,
        attempts,
        latencyMs: answer.latencyMs,
        status: answer.status,
        verdict:
          verdict.kind === 'results'
            ? 'results'
            : verdict.kind === 'unknown'
              ? 'unknown'
              : 'failed',
      });
      for (const row of rows) events.emit('record', row);
      return;
    }
  }

  async function worker(): Promise<void> {
    while (!halted()) {
      // While the gateway is being probed, no new batch goes out.
      if (outage && !(await outage)) return;
      windowShut();
      if (halted()) return;
      const next = await pending.next();
      if (next.done) return;
      await sendBatch(next.value);
    }
  }

  await Promise.all(Array.from({ length: options.concurrency }, worker));
  if (attempted && !reached && !interrupted()) {
    stop(`the gateway was never reached: ${lastReason}`, false);
  }

  // Every record must end in the report, also those never attempted.
  if (halted()) {
    const result: MessageResult = stopped
      ? { outcome: 'failed', error: `not sent: the run stopped (${stopped.reason})` }
      : interrupted()
        ? { outcome: 'skipped', error: 'not sent: the run was interrupted; --resume sends it' }
        : { outcome: 'skipped', error: WINDOW_CLOSED };
    for (;;) {
      const next = await pending.next();
      if (next.done) break;
      for (const entry of next.value) {
        notSent++;
        events.emit('record', toRow(entry, result, 0));
      }
    }
  }
  const closed = !stopped && !interrupted() && windowClosed && notSent > 0;
  return {
    stopped,
    interrupted: !stopped && interrupted(),
    notSent,
    windowClosed: closed || undefined,
  };
}

/** Built field by field: spreading results into rows was a hot spot at 100,000 messages. */
function toRow(entry: Entry, result: MessageResult, attempts: number): RowResult {
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
