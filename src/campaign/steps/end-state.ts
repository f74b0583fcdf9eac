// How a run's writing ends: answers the journal could not record written again within the outage
// grace, the report and the journal closed, and a run whose state could not be kept stopped
// (exit 6; exit 4 when another run took the campaign over), with what its --resume will find.
import { resultAt, rowsOf, type SettledResult } from '../../journal/columns.js';
import type { JournalSink } from '../../journal/lines.js';
import { HoldLostError } from '../../journal/store.js';
import type { ReportSink } from '../../report/sink.js';
import type { SendOutcome } from '../../send/types.js';
import { backoffDelay } from '../../shared/backoff.js';
import { describeSystemError, StateStoreError } from '../../shared/errors.js';
import type { CampaignRun } from '../run.js';
import type { StateLeft } from '../types.js';
import type { Sending } from './sending.js';
import { stateLeft } from './state-left.js';

/**
 * The end of a run's writing: answers the journal could not record are tried again, then the
 * report and the journal are closed. A run whose state could not be kept ends stopped (exit 6),
 * its sending done or not: --resume then finds what the journal and the report hold. True when
 * the report was written and synced whole: only then are the answers it holds kept.
 */
export async function endState(
  journal: JournalSink,
  sink: ReportSink,
  outcome: SendOutcome | undefined,
  { run, campaign }: Pick<Sending, 'run' | 'campaign'>,
): Promise<boolean> {
  // The results written since the last synced intent reach the disk here; a sync that fails
  // holds them like any failed write.
  const kept = (await journal.settle()) || (await keepAnswers(journal, run));
  if (outcome && !kept) stopFor(outcome, journal.failure!);
  const reportFailure = await sink.close().then(
    () => undefined,
    (error: unknown) => error,
  );
  if (outcome && reportFailure !== undefined) {
    const reason = reportReason(campaign.reportPath, reportFailure);
    stopFor(outcome, new Error(reason), reason);
  }
  // After a write failed, closing can fail the same way; what was written stays written.
  await journal.close().catch((error: unknown) => {
    if (!outcome?.stopped?.stateUnwritable) throw error;
  });
  return reportFailure === undefined;
}

/**
 * How the campaign stands for the --resume that finishes a run stopped on its state, counted from
 * what that resume will read; undefined while a database is still down (the stop then says what
 * this run counted).
 */
export async function leftFor(
  { run, campaign, hold, settled, spool, delivered }: Sending,
  journal: JournalSink,
  reportDurable: boolean,
): Promise<StateLeft | undefined> {
  const files = {
    readJournal: () => hold.claim.readJournal(),
    reportPath: campaign.reportPath,
    reread: (keep?: (row: number) => boolean) => spool.read(keep),
    reportDurable,
    retryUnknown: run.choices.retryUnknown === true,
    resent: settled.resent,
    delivered,
  };
  return stateLeft(files, unrecordedAnswers(journal)).catch((error: unknown) => {
    if (error instanceof StateStoreError) return undefined;
    throw error;
  });
}

/**
 * Marks a run stopped by its state, once its state has failed: a stop for another reason stands,
 * but a takeover, once known, is what a stop on the state ends with, and a database's failure is
 * told as the database's.
 */
export function stopFor(outcome: SendOutcome, failure: Error, reason = stateReason(failure)): void {
  const stopped = outcome.stopped;
  if (stopped && !stopped.stateUnwritable) return;
  const takenOver = failure instanceof HoldLostError;
  const database = failure instanceof StateStoreError;
  // The first reason stands, unless what is known now tells it truer.
  if (stopped && (stopped.takenOver || (stopped.storeDown && !takenOver))) return;
  if (stopped && !takenOver && !database) return;
  outcome.stopped = {
    reason,
    authRefused: false,
    stateUnwritable: true,
    ...(takenOver ? { takenOver } : {}),
    ...(database ? { storeDown: true } : {}),
  };
}

/** Why the state failed: a database in its own words, a disk's error described. */
export function stateReason(error: unknown): string {
  if (error instanceof StateStoreError || error instanceof HoldLostError) return error.message;
  return `campaign state could not be written: ${describeSystemError(error)}`;
}

export function reportReason(path: string, error: unknown): string {
  return `the report ${path} could not be written: ${describeSystemError(error)}`;
}

/**
 * Answers the journal could not record are written again on the outage grace's schedule, while
 * the terminal says so: a disk that gets room back in time loses nothing, and the resume need
 * not take them from the report. True once they are all on the disk.
 */
async function keepAnswers(journal: JournalSink, run: CampaignRun): Promise<boolean> {
  const { clock, events, stop } = run.io;
  const graceMs = run.settings.outageGraceMs;
  const started = clock.now();
  for (let attempt = 1; ; attempt++) {
    // Taken over, the run writes nothing more: no wait makes its answers the campaign's.
    if (journal.failure instanceof HoldLostError) return false;
    if (await journal.rewrite()) {
      if (attempt > 1) events.emit('stateKept', { afterMs: clock.now() - started });
      return true;
    }
    const leftMs = graceMs - (clock.now() - started);
    if (leftMs <= 0 || stop?.aborted) return false;
    if (attempt === 1) {
      const answers = unrecordedAnswers(journal).length;
      events.emit('stateHeld', { answers, reason: stateReason(journal.failure), graceMs });
    }
    const waitMs = Math.min(leftMs, 250 + backoffDelay(attempt));
    await clock.sleepUntil(clock.now() + waitMs, stop);
  }
}

/** The results the journal holds but could not write: each row with its result. */
function unrecordedAnswers(journal: JournalSink): SettledResult[] {
  const results: SettledResult[] = [];
  for (const line of journal.unrecorded()) {
    if (line.t !== 'result') continue;
    const rows = [...rowsOf(line.r)];
    rows.forEach((row, index) => results.push(resultAt(line, row, index)));
  }
  return results;
}
