// One batch through the gateway: sent, sent again while retries last, held over an outage, then
// settled as results, failed or unknown. sendBatch() is the whole retry policy of one batch.
import type { Answer, Verdict } from '../gateway/outcome.js';
import type { MessageResult, RowResult } from '../message/outcome.js';
import { backoffDelay } from '../shared/backoff.js';
import { toRow, type SendState } from './state.js';
import type { MessageEntry } from './types.js';

/** Outage waits one batch may sit through before it is reported `failed`. */
const MAX_OUTAGE_WAITS = 3;

type RetryVerdict = Extract<Verdict, { kind: 'retry' }>;

export async function sendBatch(run: SendState, batch: MessageEntry[]): Promise<void> {
  const tries = new BatchTries(run, batch);
  for (;;) {
    const attempt = await tries.attempt();
    // Its intent could not be journaled: it never goes out, and the run has stopped.
    if (!attempt) {
      run.leaveUnsent(batch);
      return;
    }
    const { answer, verdict } = attempt;
    if (verdict.kind === 'retry') {
      if (answer.throttled) run.limiter.throttled(verdict.retryAfterMs);
      // Retries left: wait (Retry-After, else backoff) and send again, unless the run stopped or
      // the window closed meanwhile.
      if (await tries.retryAfterWait(verdict)) continue;
      // The window closed on a batch that surely never got through: it is left for --resume, as
      // the batches not taken are (the journal has taken it back already).
      if (!tries.ambiguous && run.windowShut()) {
        run.leaveForResume(batch);
        return;
      }
      run.lastReason = verdict.reason;
      // Retries ran out on a request the gateway surely did not process (unavailable, 429,
      // refused, reset before sending): wait for the gateway and send this batch again, rather
      // than leave a person to --resume after a blip.
      const held = await tries.holdOverOutage(verdict);
      if (held === 'again') continue;
      if (held === 'window closed') {
        run.leaveForResume(batch);
        return;
      }
    }
    await tries.settle(answer, verdict);
    return;
  }
}

/** The attempts at one batch, and what the journal and the retry policy need to know of them. */
class BatchTries {
  readonly number: number;
  private readonly json: string[];
  private readonly messageIds: string[];
  private readonly rows: number[];
  private readonly recipients: string[];
  // Whether the journal holds this batch as sent: written before each attempt, taken back
  // after one that surely did not reach the gateway, so a kill while waiting to retry leaves
  // the batch unsent (sent again on resume), not `unknown`.
  private recorded = false;
  private attempts = 0;
  // Attempts since the last outage wait: a batch sent again after one gets its retries anew.
  private tries = 0;
  private outageWaits = 0;
  /** Once an attempt may have reached the gateway, a later failure cannot be called `failed`. */
  ambiguous = false;

  constructor(
    private readonly run: SendState,
    private readonly batch: MessageEntry[],
  ) {
    this.number = ++run.batchNumber;
    this.json = batch.map((entry) => entry.json);
    this.messageIds = batch.map((entry) => entry.messageId);
    this.rows = batch.map((entry) => entry.row);
    this.recipients = batch.map((entry) => entry.to);
  }

  /**
   * One request, recorded first; `--retry-unknown` turns an unknown answer into a retry.
   * Undefined when the record could not be written: then nothing is sent.
   */
  async attempt(): Promise<{ answer: Answer; verdict: Verdict } | undefined> {
    const { run } = this;
    const { gateway } = run;
    await run.limiter.acquire(this.batch.length);
    const hooks = gateway.hooks;
    const intent = () => hooks?.beforeSend?.(this.number, this.rows, this.recipients);
    if (!this.recorded && !(await run.record(intent))) {
      return undefined;
    }
    this.recorded = true;
    this.attempts++;
    this.tries++;
    const answer = await gateway.poster.post(this.json, this.messageIds, run.run.io.abort, () =>
      hooks?.posted?.(this.number),
    );
    run.attempted = true;
    run.noteReached(answer);
    run.noteUnreachable(answer.verdict);
    let verdict = answer.verdict;
    if (verdict.kind === 'unknown') this.ambiguous = true;
    if (verdict.kind === 'unknown' && run.run.choices.retryUnknown === true) {
      verdict = { kind: 'retry', reason: `${verdict.reason}; resending (--retry-unknown)` };
    }
    // Not taken back when that cannot be written: the batch then reads as in flight, never unsent.
    if (verdict.kind === 'retry' && !this.ambiguous) {
      if (await run.record(() => hooks?.notSent?.(this.number, this.rows))) this.recorded = false;
    }
    return { answer, verdict };
  }

  /** True when the batch is to be sent again: a retry was left and its wait ran out undisturbed. */
  async retryAfterWait(verdict: RetryVerdict): Promise<boolean> {
    const { run } = this;
    if (this.tries > run.run.settings.retries || run.halted() || run.windowShut()) return false;
    const delayMs = verdict.retryAfterMs ?? backoffDelay(this.tries, undefined, run.gateway.random);
    run.events.emit('retry', {
      batch: this.number,
      attempt: this.attempts,
      delayMs,
      reason: verdict.reason,
    });
    await run.pause(delayMs);
    // Ctrl-C during the wait: the batch ends here as what it is (surely not processed).
    return !run.interrupted() && !run.windowShut();
  }

  /**
   * Waits for the gateway (every worker's one wait) and says whether to send again. Bounded, for
   * a gateway that answers the probe but never this batch.
   */
  async holdOverOutage(verdict: RetryVerdict): Promise<'again' | 'window closed' | 'settle'> {
    const { run } = this;
    const waitable = run.graceMs > 0 && !this.ambiguous && !run.halted();
    if (!waitable || this.outageWaits >= MAX_OUTAGE_WAITS) return 'settle';
    this.outageWaits++;
    // A send again after the wait asks the window first, as every send does.
    if ((await run.waitForGateway(verdict.reason)) && !run.windowShut()) {
      this.tries = 0;
      return 'again';
    }
    return run.windowClosed ? 'window closed' : 'settle';
  }

  /** The batch's rows: the gateway's results, or every record failed (or unknown) for one reason. */
  async settle(answer: Answer, verdict: Verdict): Promise<void> {
    const { run, batch, attempts } = this;
    let results: MessageResult[];
    if (verdict.kind === 'results') {
      run.consecutiveFailures = 0;
      run.limiter.succeeded();
      results = verdict.results;
    } else {
      run.lastReason = verdict.reason;
      const outcome = verdict.kind === 'unknown' || this.ambiguous ? 'unknown' : 'failed';
      const note = attempts > 1 ? ` (after ${attempts} attempts)` : '';
      results = batch.map(() => ({ outcome, error: verdict.reason + note }));
      run.countFailure(verdict);
    }
    const rows: RowResult[] = batch.map((entry, i) => toRow(entry, results[i]!, attempts));
    // A result that cannot be journaled still goes to the report; the journal reads the batch as
    // in flight (unknown on resume, never sent again).
    await run.record(() => run.gateway.hooks?.afterResult?.(this.number, rows));
    run.events.emit('batch', {
      batch: this.number,
      size: batch.length,
      attempts,
      latencyMs: answer.latencyMs,
      status: answer.status,
      verdict:
        verdict.kind === 'results' ? 'results' : verdict.kind === 'unknown' ? 'unknown' : 'failed',
    });
    for (const row of rows) run.events.emit('record', row);
  }
}
