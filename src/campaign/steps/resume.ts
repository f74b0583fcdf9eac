// On --resume, records an earlier run already settled are reported from the journal, not resent.
import { CONFIRMED_BY_DLR } from '../../dlr/matching.js';
import type { JournalState } from '../../journal/reading.js';
import type { MessageResult } from '../../message/outcome.js';
import type { Entry, TextColumns } from '../../validate/entries.js';
import type { ResumeCounts } from '../types.js';

/** Counts of a resume before it has decided anything. */
export function noResumeCounts(): ResumeCounts {
  return { fromJournal: 0, fromReport: 0, inFlight: 0, unposted: 0 };
}

/**
 * What a record left in flight is reported as: sent with no answer, or not known to have left.
 * The journal cannot tell a run killed before its request left from one whose journal failed
 * (a full disk) after it had left: either leaves the batch without its `posted` line, so the
 * second kind claims nothing about whether it was sent.
 */
export const SENT_NO_ANSWER = 'sent by an interrupted run that got no answer';
export const NOT_KNOWN_SENT =
  'recorded as about to be sent, with no record that its request left whole (the run was killed, or could not write its journal): the gateway may have it';

/** Counts a record in flight by its kind, and says what it is. */
function inFlightError(journal: JournalState, row: number, counts: ResumeCounts): string {
  if (journal.unposted.has(row)) {
    counts.unposted++;
    return NOT_KNOWN_SENT;
  }
  counts.inFlight++;
  return SENT_NO_ANSWER;
}

/** Whether an earlier result is final for this run: anything but `failed` (and `unknown` with --retry-unknown). */
function settles(outcome: string, retryUnknown: boolean): boolean {
  return outcome !== 'failed' && !(outcome === 'unknown' && retryUnknown);
}

/** Whether an earlier run settled a row: the honest "left to send" counts only the others. */
export function settledRows(
  journal: JournalState,
  retryUnknown: boolean,
  resent?: ReadonlyMap<number, string>,
): (row: number) => boolean {
  return (row) => {
    const previous = journal.results.outcome(row);
    if (previous && settles(previous, retryUnknown)) return true;
    if (resent?.has(row)) return true;
    // A failed row sent again by a run killed before the answer is in flight: applyJournal
    // reports it unknown rather than send it, so it is not left to send either.
    return !retryUnknown && journal.inFlight.has(row);
  };
}

/** What a resume decides each record by: the journal and what may override it. */
export interface Earlier {
  journal: JournalState;
  retryUnknown: boolean;
  counts: ResumeCounts;
  resent?: ReadonlyMap<number, string>;
  delivered?: (messageId: string) => boolean;
}

/**
 * accepted/rejected/unknown results are final; a `failed` one was surely not processed and is
 * sent again. A batch sent without a recorded answer is `unknown`, resent only with --retry-unknown.
 */
export async function* applyJournal(
  chunks: AsyncIterable<readonly Entry[]>,
  earlier: Earlier,
): AsyncGenerator<Entry[]> {
  for await (const chunk of chunks)
    yield chunk.map((entry) => earlierResult(entry, earlier) ?? entry);
}

/**
 * The records this run decides, without those an earlier run settled: the send pass reaches the
 * first record left to send at the speed of reading the spool (see docs/architecture.md#resume).
 */
export async function* withoutEarlier(
  chunks: AsyncIterable<readonly Entry[]>,
  earlier: Earlier,
): AsyncGenerator<Entry[]> {
  for await (const chunk of chunks) {
    const left = chunk.filter((entry) => !isEarlier(entry, earlier));
    if (left.length > 0) yield left;
  }
}

/** The records an earlier run settled, each with the result it is reported with. */
export async function* earlierOnly(
  chunks: AsyncIterable<readonly Entry[]>,
  earlier: Earlier,
): AsyncGenerator<Entry[]> {
  for await (const chunk of chunks) {
    const settled: Entry[] = [];
    for (const entry of chunk) {
      if (!isEarlier(entry, earlier)) continue;
      const result = earlierResult(entry, earlier);
      // The two streams must split the records exactly, or one would be lost or sent twice.
      if (!result) throw new Error(`row ${entry.row}: the resume's two readings of it disagree`);
      settled.push(result);
    }
    if (settled.length > 0) yield settled;
  }
}

/**
 * Rows whose message an earlier run may have settled, known from the row alone: isEarlier() is
 * false for every other message, so the spool's reader passes over them undecoded.
 */
export function maybeEarlier(earlier: Earlier): (row: number) => boolean {
  const { journal, retryUnknown, resent, delivered } = earlier;
  const surely = settledRows(journal, retryUnknown, resent);
  return (row) =>
    surely(row) ||
    (delivered !== undefined &&
      (journal.results.outcome(row) !== undefined || journal.inFlight.has(row)));
}

/** The record as an earlier run left it, or undefined when this run decides it. */
export function earlierResult(entry: Entry, earlier: Earlier): Entry | undefined {
  const { journal, retryUnknown, counts, resent, delivered } = earlier;
  return (
    confirmed(entry, journal, counts, delivered) ??
    settled(entry, journal, retryUnknown, counts) ??
    resentBy(entry, resent, counts) ??
    sentBefore(entry, journal, counts)
  );
}

/** Whether earlierResult() gives the record a result, decided without reading any result's text. */
export function isEarlier(entry: Entry, earlier: Earlier): boolean {
  const { journal, retryUnknown, resent, delivered } = earlier;
  const outcome = journal.results.outcome(entry.row);
  const inFlight = journal.inFlight.has(entry.row);
  if (entry.kind === 'final') return (outcome !== undefined && outcome !== 'failed') || inFlight;
  if (
    delivered?.(entry.messageId) &&
    (outcome === 'unknown' || (outcome === undefined && inFlight))
  ) {
    return true;
  }
  if (outcome !== undefined && settles(outcome, retryUnknown)) return true;
  if (inFlight && !retryUnknown) return true;
  return resent?.has(entry.row) === true;
}

/**
 * A record the journal leaves unknown (or in flight) whose delivery report an earlier report
 * records: the gateway had it, so it is accepted, never sent again, even with --retry-unknown.
 * The journal misses such a confirmation when `dlr` could not reach the campaign's state.
 */
function confirmed(
  entry: Entry,
  journal: JournalState,
  counts: ResumeCounts,
  delivered?: (messageId: string) => boolean,
): Entry | undefined {
  if (entry.kind !== 'message' || !delivered?.(entry.messageId)) return undefined;
  const outcome = journal.results.outcome(entry.row);
  const inFlight = journal.inFlight.get(entry.row);
  if (outcome !== 'unknown' && (outcome !== undefined || inFlight === undefined)) return undefined;
  const previous = journal.results.get(entry.row);
  counts.fromJournal++;
  return earlierEntry(entry, previous?.attempts ?? inFlight ?? 1, {
    ...previous,
    outcome: 'accepted',
    statusDescription: CONFIRMED_BY_DLR,
  });
}

/**
 * A record a follow-up re-sent since this campaign's run (it failed, or was unknown): the
 * follow-up's report has its result, and sending it here would send it twice.
 */
function resentBy(
  entry: Entry,
  resent: ReadonlyMap<number, string> | undefined,
  counts: ResumeCounts,
): Entry | undefined {
  const by = entry.kind === 'message' ? resent?.get(entry.row) : undefined;
  if (by === undefined) return undefined;
  counts.fromJournal++;
  return earlierEntry(entry, 0, {
    outcome: 'skipped',
    error: `re-sent by follow-up campaign ${by}; its report has the result`,
  });
}

/** The entry's result from the journal when an earlier run settled it; undefined to send it. */
function settled(
  entry: Entry,
  journal: JournalState,
  retryUnknown: boolean,
  counts: ResumeCounts,
): Entry | undefined {
  if (entry.kind !== 'message') return undefined;
  const outcome = journal.results.outcome(entry.row);
  const previous =
    outcome && settles(outcome, retryUnknown) ? journal.results.get(entry.row) : undefined;
  if (previous) {
    counts.fromJournal++;
    if (journal.adopted?.has(entry.row)) counts.fromReport++;
    return earlierEntry(entry, previous.attempts, previous);
  }
  const sentTimes = journal.inFlight.get(entry.row);
  if (sentTimes !== undefined && !retryUnknown) {
    const error = inFlightError(journal, entry.row, counts);
    return earlierEntry(entry, sentTimes, {
      outcome: 'unknown',
      error: `${error}; --retry-unknown sends it again`,
    });
  }
  return undefined;
}

/** A record as an earlier run left it: reported with this result, not sent by this run. */
function earlierEntry(entry: Entry, attempts: number | undefined, result: MessageResult): Entry {
  return {
    kind: 'final',
    row: entry.row,
    to: entry.to,
    messageId: entry.messageId,
    attempts,
    result,
    earlier: true,
    ...textColumns(entry),
  };
}

/** The text's columns travel with the record: the journal keeps results, the spool the rest. */
function textColumns(entry: TextColumns): TextColumns {
  const columns: TextColumns = {};
  if (entry.segments !== undefined) columns.segments = entry.segments;
  if (entry.encoding !== undefined) columns.encoding = entry.encoding;
  if (entry.normalized !== undefined) columns.normalized = entry.normalized;
  return columns;
}

/**
 * A record this run leaves out (a number put on a suppression list since, say) that an earlier
 * run had sent: what the journal recorded is what happened to it, and the report says so.
 */
function sentBefore(entry: Entry, journal: JournalState, counts: ResumeCounts): Entry | undefined {
  if (entry.kind !== 'final') return undefined;
  const previous = journal.results.get(entry.row);
  if (previous && previous.outcome !== 'failed') {
    counts.fromJournal++;
    return { ...entry, result: previous, attempts: previous.attempts, earlier: true };
  }
  // In flight with no result, or after a failed one (sent again by a run killed before the answer).
  const sentTimes = journal.inFlight.get(entry.row);
  if (sentTimes !== undefined) {
    return {
      ...entry,
      attempts: sentTimes,
      result: { outcome: 'unknown', error: inFlightError(journal, entry.row, counts) },
      earlier: true,
    };
  }
  return undefined;
}
