// Tallies a run as rows arrive: counts by outcome and StatusCode, timing, the exit code it earns.
import { ExitCode } from '../shared/errors.js';
import { systemClock, type Clock } from '../shared/clock.js';
import { SENT_BY_PREFIX, SUPPRESSED_PREFIX } from '../message/suppress.js';
import { NOT_SENT_PREFIX } from '../send/state.js';
import { OUTCOMES, type Outcome, type RowResult } from '../message/outcome.js';

export interface RunSummary {
  total: number;
  byOutcome: Record<Outcome, number>;
  /** Of the skipped rows, those whose recipient is on a suppression list. */
  suppressed?: number;
  /** Of the skipped rows, those a campaign --skip-sent-by names may have sent to. */
  sentBefore?: number;
  /**
   * Of the skipped rows, those never to be sent (a suppression list, --dedupe, --limit, re-sent by
   * a follow-up), as against those a stop, a Ctrl-C or a closing window left unsent.
   */
  notToSend?: number;
  /** StatusCode → count, with the first description seen for it. */
  byStatusCode: Record<string, { count: number; description: string }>;
  startedAt: number;
  finishedAt: number;
  durationMs: number;
  /** Messages the gateway answered for (accepted + rejected) per second of the run. */
  messagesPerSecond: number;
  reportPath?: string;
  exitCode: ExitCode;
}

/**
 * Whether a row was one of the messages the run set out to send (the dry run's "to send"): not an
 * invalid record, nor one left out on purpose (a suppression list, --dedupe, --limit, re-sent by a
 * follow-up); a row a stop, a Ctrl-C or a closing window left unsent was.
 */
export function wasToSend(outcome: string, error: string | undefined): boolean {
  if (outcome === 'invalid') return false;
  return outcome !== 'skipped' || error?.startsWith(NOT_SENT_PREFIX) === true;
}

/**
 * The records that were to be sent, which every "N of M messages" counts against (the summary, the
 * campaigns list and `campaigns show`): invalid ones, and those skipped on purpose (a suppression
 * list, --dedupe, --limit, a follow-up), never were.
 */
export function messagesOf(
  total: number,
  byOutcome: Record<Outcome, number>,
  notToSend: number | undefined,
): number {
  return total - byOutcome.invalid - (notToSend ?? 0);
}

/**
 * The one rule for how a campaign's records end a run that finished (and the summary's mark): exit
 * 0 (✔) when every record was accepted or left out on purpose (skipped), 1 (!) when any was
 * rejected, invalid, failed or unknown. The same counts earn the same code whichever run reports
 * them: the run that finishes a campaign, a --once or --resume that finds it finished, a pilot.
 */
export function finishedExitCode(byOutcome: Record<Outcome, number>, total: number): ExitCode {
  return byOutcome.accepted + byOutcome.skipped === total ? ExitCode.ok : ExitCode.notAllAccepted;
}

export class Tally {
  total = 0;
  readonly byOutcome = Object.fromEntries(OUTCOMES.map((o) => [o, 0])) as Record<Outcome, number>;
  readonly byStatusCode: RunSummary['byStatusCode'] = {};
  suppressed = 0;
  sentBefore = 0;
  notToSend = 0;
  /** When this run began sending: the send pass sets it as it starts. */
  startedAt: number;
  /** Rows an earlier run settled (resume): in the report, but not this run's work or rate. */
  earlier = 0;
  /** Of byOutcome, the rows an earlier run settled: progress counts only this run's. */
  readonly earlierByOutcome = Object.fromEntries(OUTCOMES.map((o) => [o, 0])) as Record<
    Outcome,
    number
  >;
  private earlierAnswered = 0;

  constructor(private readonly clock: Clock = systemClock) {
    this.startedAt = clock.now();
  }

  add(row: RowResult, earlier = false): void {
    this.total++;
    if (earlier) {
      this.earlier++;
      this.earlierByOutcome[row.outcome]++;
      if (row.outcome === 'accepted' || row.outcome === 'rejected') this.earlierAnswered++;
    }
    this.byOutcome[row.outcome]++;
    if (row.outcome === 'skipped') {
      if (row.error?.startsWith(SUPPRESSED_PREFIX)) this.suppressed++;
      if (row.error?.startsWith(SENT_BY_PREFIX)) this.sentBefore++;
      if (!wasToSend(row.outcome, row.error)) this.notToSend++;
    }
    if (row.statusCode !== undefined) {
      const key = String(row.statusCode);
      const entry = (this.byStatusCode[key] ??= {
        count: 0,
        description: row.statusDescription ?? '',
      });
      entry.count++;
    }
  }

  /** The number of records the gateway gave this run an answer for. */
  get answered(): number {
    return this.byOutcome.accepted + this.byOutcome.rejected - this.earlierAnswered;
  }

  /** Rows this run settled (not those an earlier run's journal settled). */
  get done(): number {
    return this.total - this.earlier;
  }

  summary(reportPath?: string): RunSummary {
    const finishedAt = this.clock.now();
    const durationMs = finishedAt - this.startedAt;
    return {
      total: this.total,
      byOutcome: { ...this.byOutcome },
      suppressed: this.suppressed,
      sentBefore: this.sentBefore,
      notToSend: this.notToSend,
      byStatusCode: structuredClone(this.byStatusCode),
      startedAt: this.startedAt,
      finishedAt,
      durationMs,
      messagesPerSecond: durationMs > 0 ? (this.answered * 1000) / durationMs : 0,
      reportPath,
      exitCode: finishedExitCode(this.byOutcome, this.total),
    };
  }
}
