// Folds delivery reports into a report's deliveryStatus and deliveredAt columns, under the report's lock.
import { stat } from 'node:fs/promises';
import { describeSystemError, LockedError } from '../shared/errors.js';
import { acquireLock, lockPath, type Lock } from '../journal/lock.js';
import type { RowResult } from '../message/outcome.js';
import { updateReport } from '../report/update.js';
import { readLog } from './log.js';
import type { DeliveryBook } from './matching.js';
import { noRefusals, type ProofRefusal, type ProofVerdict, type Verify } from './proof.js';
import {
  CONFIRMED_BY_DLR,
  DLR_COLUMNS,
  deliveryOfRow,
  messageIdOfRow,
  supersedes,
  type Delivery,
  type DeliveryReport,
} from './matching.js';

/** How many unmatched MessageIds a result names; all of them are in the log. */
const SAMPLE = 5;

export interface FoldDone {
  kind: 'updated';
  /** Rows in the report. */
  rows: number;
  /** Rows this fold changed. */
  changedRows: number;
  /** Whether the report was rewritten (only when a row changed). */
  written: boolean;
  /** MessageIds with a delivery found in the report. */
  matched: number;
  /** MessageIds with a delivery not found in the report: another campaign's, or not written yet. */
  unmatched: number;
  /** Rows this fold turned from `unknown` into `accepted`: a delivery report proves the gateway took them. */
  confirmed: number;
  /**
   * Those rows as they now read, and those an earlier fold confirmed, for the campaign's state
   * (recordConfirmed records only what its journal still leaves open).
   */
  confirmedRows: RowResult[];
  unmatchedSample: string[];
  /** fileIdentity() of the report as this fold left it. */
  identity: string;
}

export interface FoldDeferred {
  kind: 'deferred';
  /**
   * missing: the report does not exist (yet); locked: a run holds the report's lock;
   * error: it could not be read or written.
   */
  reason: 'missing' | 'locked' | 'error';
  message: string;
}

export type FoldResult = FoldDone | FoldDeferred;

/** The columns a fold may set: the delivery, and the outcome of a row it confirms. */
const FOLD_COLUMNS = [...DLR_COLUMNS, 'outcome', 'statusDescription'] as const;

/**
 * Writes each MessageId's winning delivery into every report row with that MessageId, unless the
 * row already records a later one (by timestamp). Rows are never dropped or reordered, and rows
 * without a delivery keep what they had. A delivery report for a row whose outcome is `unknown`
 * proves the gateway accepted it: the row becomes `accepted`, its statusDescription saying
 * "confirmed by delivery report" (its error column keeps why it was unknown).
 *
 * The report's lock (`<report>.lock`, which `sms-send send` takes while it writes the report) is held for the rewrite:
 * while a run holds it the report is being appended to through an open file, which a rename
 * would cut off, so the fold is deferred instead. A run that starts during the few milliseconds
 * of a rewrite exits 4 and sends nothing.
 */
/**
 * Who holds the report, in a fold's words: a send's refusal says nothing was sent and offers the
 * lock's removal, neither of which is true of a fold a live run keeps waiting. Only a holder on
 * another host, whose process cannot be seen, may be gone, and only then is its lock named.
 */
function heldBy(error: LockedError, reportPath: string): string {
  const holder = error.holder;
  if (holder === undefined) return error.message;
  const who = `pid ${holder.pid} on ${holder.host}, since ${holder.since}`;
  const gone = holder.seenAlive
    ? ''
    : `; if no sms-send runs on ${holder.host} any more, delete ${lockPath(reportPath)}`;
  return `another sms-send is writing to it (${who}${gone})`;
}

export async function foldIntoReport(reportPath: string, book: DeliveryBook): Promise<FoldResult> {
  try {
    await stat(reportPath);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      return { kind: 'deferred', reason: 'missing', message: `${reportPath} does not exist yet` };
    }
    return { kind: 'deferred', reason: 'error', message: describeSystemError(error) };
  }
  let lock: Lock;
  try {
    lock = await acquireLock(lockPath(reportPath));
  } catch (error) {
    if (error instanceof LockedError) {
      return { kind: 'deferred', reason: 'locked', message: heldBy(error, reportPath) };
    }
    return { kind: 'deferred', reason: 'error', message: describeSystemError(error) };
  }
  try {
    const matched = new Set<string>();
    const confirmedRows: RowResult[] = [];
    let confirmed = 0;
    const result = await updateReport(reportPath, FOLD_COLUMNS, (row) => {
      const id = messageIdOfRow(row);
      const delivery = id === undefined ? undefined : book.get(id);
      if (id === undefined || !delivery) return undefined;
      matched.add(id);
      if (row['outcome'] === 'unknown') confirmed++;
      // A row an earlier fold confirmed goes to the campaign's state again: that fold may have
      // updated the report and then failed before it could record it there (recordConfirmed
      // settles only what the journal still leaves open).
      if (row['outcome'] === 'unknown' || row['statusDescription'] === CONFIRMED_BY_DLR) {
        confirmedRows.push(confirmedRow(row, id));
      }
      return foldedCells(row, delivery);
    });
    const sample: string[] = [];
    let unmatched = 0;
    for (const id of book.ids()) {
      if (matched.has(id)) continue;
      unmatched++;
      if (sample.length < SAMPLE) sample.push(id);
    }
    return {
      kind: 'updated',
      rows: result.rows,
      changedRows: result.changed,
      written: result.written,
      matched: matched.size,
      unmatched,
      unmatchedSample: sample,
      confirmed,
      confirmedRows,
      identity: result.identity,
    };
  } catch (error) {
    return { kind: 'deferred', reason: 'error', message: describeSystemError(error) };
  } finally {
    await lock.release();
  }
}

/**
 * The cells a row's delivery changes: its status and time, unless the row records a later one;
 * and an `unknown` row's outcome, since a delivery report proves the gateway took it.
 */
export function foldedCells(
  row: Readonly<Record<string, unknown>>,
  delivery: Delivery,
): Record<string, string> | undefined {
  const confirm =
    row['outcome'] === 'unknown'
      ? { outcome: 'accepted', statusDescription: CONFIRMED_BY_DLR }
      : undefined;
  const recorded = deliveryOfRow(row);
  if (recorded && !supersedes(delivery, recorded)) return confirm;
  return { deliveryStatus: delivery.status, deliveredAt: delivery.at, ...confirm };
}

/** A row a delivery report confirmed, as the report now records it (extraInfo aside). */
function confirmedRow(row: Readonly<Record<string, unknown>>, messageId: string): RowResult {
  const text = (key: string) => {
    const value = row[key];
    return typeof value === 'string' && value !== '' ? value : undefined;
  };
  return {
    row: Number(row['row']),
    to: text('to') ?? '',
    messageId,
    outcome: 'accepted',
    attempts: Number(row['attempts']) || 0,
    statusDescription: CONFIRMED_BY_DLR,
    transactionId: text('transactionId'),
    error: text('error'),
  };
}

export interface LogCounts {
  /** Reports read from the log and taken (refused ones aside). */
  reports: number;
  /** Reports refused, by reason: they changed nothing. */
  refused: Record<ProofRefusal, number>;
  /** Of those, reports without a status: nothing to record. */
  withoutStatus: number;
  /** Lines that are not reports: requests the receiver answered 400, torn or foreign lines. */
  malformed: number;
  /** Line numbers of the first malformed lines. */
  malformedLines: number[];
}

/**
 * Reads a log into a book, in order: for each MessageId the later report wins. With `verify`,
 * only the reports it lets through are taken: whoever could write into the log could forge.
 */
export async function readLogInto(
  logPath: string,
  book: DeliveryBook,
  onReport?: (report: DeliveryReport) => void,
  verify?: Verify,
): Promise<LogCounts> {
  const counts: LogCounts = {
    reports: 0,
    refused: noRefusals(),
    withoutStatus: 0,
    malformed: 0,
    malformedLines: [],
  };
  for await (const entry of readLog(logPath)) {
    if (entry.kind === 'malformed') {
      counts.malformed++;
      if (counts.malformedLines.length < SAMPLE) counts.malformedLines.push(entry.line);
      continue;
    }
    const verdict: ProofVerdict = verify ? await verify(entry.report) : { ok: true };
    if (!verdict.ok) {
      counts.refused[verdict.reason]++;
      continue;
    }
    counts.reports++;
    if (!book.add(entry.report)) counts.withoutStatus++;
    onReport?.(entry.report);
  }
  return counts;
}
