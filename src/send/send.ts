// The send loop: batches from a stream, a fixed number of workers, retries, rate, circuit breaker.
import type { Answer } from '../gateway/outcome.js';
import type { MessageResult, RowResult } from '../report/outcome.js';
import { backoffDelay } from './backoff.js';
import { batches } from './batcher.js';
import type { SendEmitter } from './events.js';
import { RateLimiter } from './rate.js';

/** What send() consumes: a message to send (already serialised), or a record decided beforehand. */
export type Entry =
  | { kind: 'message'; row: number; to: string; messageId: string; json: string }
  | {
      kind: 'final';
      row: number;
      to: string;
      messageId: string;
      result: MessageResult;
      attempts?: number;
      /** Settled by an earlier run (resume): reported, but not this run's work. */
      earlier?: boolean;
    };

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
  afterResult?(batch: number, rows: readonly RowResult[]): Promise<void>;
}

export interface SendOptions {
  poster: Poster;
  batchSize: number;
  concurrency: number;
  retries: number;
  /** Also resend batches whose outcome is unknown (may deliver twice). */
  retryUnknown?: boolean;
  /** Request-level failures in a row that stop the run. */
  maxConsecutiveFailures?: number;
  limiter?: RateLimiter;
  hooks?: SendHooks;
  /** Once aborted, no new batch is taken; batches in flight finish. */
  stopSignal?: AbortSignal;
  /** Once aborted, requests in flight are abandoned (their records become unknown). */
  abortSignal?: AbortSignal;
  /** Waits before a retry; injectable so tests need not sleep. */
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
}

export interface SendOutcome {
  /** Why the run stopped early, when it did; unsent records were reported `failed`. */
  stopped?: { reason: string; authRefused: boolean };
  /** True when a stop or abort signal ended the run early. */
  interrupted: boolean;
  /** Records never attempted because the run stopped or was interrupted (`failed` or `skipped`). */
  notSent: number;
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export async function send(
  entries: AsyncIterable<Entry>,
  options: SendOptions,
  events: SendEmitter,
): Promise<SendOutcome> {
  const sleep = options.sleep ?? defaultSleep;
  const limiter = options.limiter ?? new RateLimiter(undefined);
  const maxFailures = options.maxConsecutiveFailures ?? 5;
  let consecutiveFailures = 0;
  let batchNumber = 0;
  let stopped: SendOutcome['stopped'];

  async function* messages(): AsyncGenerator<MessageEntry> {
    for await (const entry of entries) {
      if (entry.kind === 'final') {
        events.emit('record', toRow(entry, entry.result, entry.attempts ?? 0), entry.earlier);
      } else yield entry;
    }
  }
  const pending = batches(messages(), options.batchSize)[Symbol.asyncIterator]();
  const interrupted = () =>
    options.stopSignal?.aborted === true || options.abortSignal?.aborted === true;
  const halted = () => stopped !== undefined || interrupted();

  function stop(reason: string, authRefused: boolean): void {
    if (stopped) return;
    stopped = { reason, authRefused };
    events.emit('stop', stopped);
  }

  async function sendBatch(batch: MessageEntry[]): Promise<void> {
    const number = ++batchNumber;
    const json = batch.map((entry) => entry.json);
    const messageIds = batch.map((entry) => entry.messageId);
    await options.hooks?.beforeSend?.(
      number,
      batch.map((entry) => entry.row),
    );
    let attempts = 0;
    // Once an attempt may have reached the gateway, a later failure cannot be called `failed`.
    let ambiguous = false;
    for (;;) {
      await limiter.acquire(batch.length);
      attempts++;
      const answer = await options.poster.post(json, messageIds, options.abortSignal);
      let verdict = answer.verdict;
      if (verdict.kind === 'unknown') ambiguous = true;
      if (verdict.kind === 'unknown' && options.retryUnknown) {
        verdict = { kind: 'retry', reason: `${verdict.reason}; resending (--retry-unknown)` };
      }
      if (verdict.kind === 'retry') {
        if (answer.throttled) limiter.throttled(verdict.retryAfterMs);
        if (attempts <= options.retries && !halted()) {
          const delayMs = verdict.retryAfterMs ?? backoffDelay(attempts, undefined, options.random);
          events.emit('retry', {
            batch: number,
            attempt: attempts,
            delayMs,
            reason: verdict.reason,
          });
          await sleep(delayMs);
          continue;
        }
      }
      let results: MessageResult[];
      if (verdict.kind === 'results') {
        consecutiveFailures = 0;
        limiter.succeeded();
        results = verdict.results;
      } else {
        // A retry verdict that ran out of attempts: the gateway surely did not take it.
        const outcome = verdict.kind === 'unknown' || ambiguous ? 'unknown' : 'failed';
        const note = attempts > 1 ? ` (after ${attempts} attempts)` : '';
        results = batch.map(() => ({ outcome, error: verdict.reason + note }));
        consecutiveFailures++;
        if (verdict.kind === 'failed' && verdict.authRefused) stop(verdict.reason, true);
        else if (consecutiveFailures >= maxFailures) {
          stop(`${consecutiveFailures} requests in a row failed; last: ${verdict.reason}`, false);
        }
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
      const next = await pending.next();
      if (next.done) return;
      await sendBatch(next.value);
    }
  }

  await Promise.all(Array.from({ length: options.concurrency }, worker));

  // Every record must end in the report, also those never attempted.
  let notSent = 0;
  if (halted()) {
    const result: MessageResult = stopped
      ? { outcome: 'failed', error: `not sent: the run stopped (${stopped.reason})` }
      : { outcome: 'skipped', error: 'not sent: the run was interrupted; --resume sends it' };
    for (;;) {
      const next = await pending.next();
      if (next.done) break;
      for (const entry of next.value) {
        notSent++;
        events.emit('record', toRow(entry, result, 0));
      }
    }
  }
  return { stopped, interrupted: !stopped && interrupted(), notSent };
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
  return row;
}
