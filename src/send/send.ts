// The send loop: batches from a stream, a fixed number of workers, retries, circuit breaker.
import type { Exchange } from '../gateway/client.js';
import { classify, type MessageResult, type Verdict } from '../gateway/outcome.js';
import type { RestSmsMessageReq } from '../gateway/types.js';
import { backoffDelay } from './backoff.js';
import { batches } from './batcher.js';
import type { RowResult, SendEmitter } from './events.js';

/** What the pipeline feeds to send(): a message to send, or a record already decided locally. */
export type Entry =
  | { kind: 'message'; row: number; to: string; message: RestSmsMessageReq }
  | { kind: 'final'; row: number; to: string; messageId: string; result: MessageResult };

type MessageEntry = Extract<Entry, { kind: 'message' }>;

/** The one thing send() needs of the gateway client; tests may pass another implementation. */
export interface Poster {
  post(messages: readonly RestSmsMessageReq[], signal?: AbortSignal): Promise<Exchange>;
  /** Scrubs secrets from text bound for the report (an error body may echo the request). */
  redact(text: string): string;
}

export interface SendOptions {
  poster: Poster;
  batchSize: number;
  concurrency: number;
  retries: number;
  /** Request-level failures in a row that stop the run. */
  maxConsecutiveFailures?: number;
  /** Once aborted, no new batch is taken; batches in flight finish. */
  stopSignal?: AbortSignal;
  /** Waits before a retry; injectable so tests need not sleep. */
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
}

export interface SendOutcome {
  /** Why the run stopped early, when it did; unsent records were reported `failed`. */
  stopped?: { reason: string; authRefused: boolean };
  /** True when the stop signal ended the run early. */
  interrupted: boolean;
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export async function send(
  entries: AsyncIterable<Entry>,
  options: SendOptions,
  events: SendEmitter,
): Promise<SendOutcome> {
  const sleep = options.sleep ?? defaultSleep;
  const maxFailures = options.maxConsecutiveFailures ?? 5;
  let consecutiveFailures = 0;
  let batchNumber = 0;
  let stopped: SendOutcome['stopped'];

  async function* messages(): AsyncGenerator<MessageEntry> {
    for await (const entry of entries) {
      if (entry.kind === 'final') {
        events.emit('record', { ...pick(entry), ...entry.result, attempts: 0 });
      } else yield entry;
    }
  }
  const pending = batches(messages(), options.batchSize)[Symbol.asyncIterator]();
  const halted = () => stopped !== undefined || options.stopSignal?.aborted === true;

  function stop(reason: string, authRefused: boolean): void {
    if (stopped) return;
    stopped = { reason, authRefused };
    events.emit('stop', stopped);
  }

  async function sendBatch(batch: MessageEntry[]): Promise<void> {
    const number = ++batchNumber;
    const sent = batch.map((entry) => entry.message);
    let attempts = 0;
    for (;;) {
      attempts++;
      const exchange = await options.poster.post(sent);
      const verdict = redactVerdict(classify(exchange, sent), options.poster);
      const status = exchange.kind === 'response' ? String(exchange.status) : exchange.code;
      if (verdict.kind === 'retry' && attempts <= options.retries && !halted()) {
        const delayMs = verdict.retryAfterMs ?? backoffDelay(attempts, undefined, options.random);
        events.emit('retry', { batch: number, attempt: attempts, delayMs, reason: verdict.reason });
        await sleep(delayMs);
        continue;
      }
      let results: MessageResult[];
      if (verdict.kind === 'results') {
        consecutiveFailures = 0;
        results = verdict.results;
      } else {
        const outcome = verdict.kind === 'unknown' ? 'unknown' : 'failed';
        const note = attempts > 1 ? ` (after ${attempts} attempts)` : '';
        results = sent.map(() => ({ outcome, error: verdict.reason + note }));
        consecutiveFailures++;
        if (verdict.kind === 'failed' && verdict.authRefused) stop(verdict.reason, true);
        else if (consecutiveFailures >= maxFailures) {
          stop(`${consecutiveFailures} requests in a row failed; last: ${verdict.reason}`, false);
        }
      }
      events.emit('batch', {
        batch: number,
        size: batch.length,
        attempts,
        latencyMs: exchange.latencyMs,
        status,
        verdict:
          verdict.kind === 'results'
            ? 'results'
            : verdict.kind === 'unknown'
              ? 'unknown'
              : 'failed',
      });
      batch.forEach((entry, i) =>
        events.emit('record', { ...pick(entry), ...results[i]!, attempts }),
      );
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

  if (stopped) {
    // Every record must end in the report: those never attempted are failed, with the reason.
    const reason = `not sent: the run stopped (${stopped.reason})`;
    for (;;) {
      const next = await pending.next();
      if (next.done) break;
      for (const entry of next.value) {
        events.emit('record', { ...pick(entry), outcome: 'failed', error: reason, attempts: 0 });
      }
    }
  }
  return { stopped, interrupted: !stopped && options.stopSignal?.aborted === true };
}

function redactVerdict(verdict: Verdict, poster: Poster): Verdict {
  return verdict.kind === 'results'
    ? verdict
    : { ...verdict, reason: poster.redact(verdict.reason) };
}

function pick(entry: Entry): Pick<RowResult, 'row' | 'to' | 'messageId'> {
  const messageId = entry.kind === 'message' ? (entry.message.MessageId ?? '') : entry.messageId;
  return { row: entry.row, to: entry.to, messageId };
}
