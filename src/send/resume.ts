// On --resume, records an earlier run already settled are reported from the journal, not resent.
import type { JournalState } from '../journal/journal.js';
import type { Entry } from './send.js';

export interface ResumeCounts {
  /** Records whose result came from the journal. */
  fromJournal: number;
  /** Records the earlier run sent without an answer, reported unknown again (or resent). */
  inFlight: number;
}

/** Whether an earlier result is final for this run: anything but `failed` (and `unknown` with --retry-unknown). */
function settles(outcome: string, retryUnknown: boolean): boolean {
  return outcome !== 'failed' && !(outcome === 'unknown' && retryUnknown);
}

/** Whether an earlier run settled a row: the honest "left to send" counts only the others. */
export function settledRows(
  journal: JournalState,
  retryUnknown: boolean,
): (row: number) => boolean {
  return (row) => {
    const previous = journal.results.get(row);
    if (previous) return settles(previous.outcome, retryUnknown);
    return !retryUnknown && journal.inFlight.has(row);
  };
}

/**
 * accepted/rejected/unknown results are final; a `failed` one was surely not processed and is
 * sent again. A batch sent without a recorded answer is `unknown`, resent only with --retry-unknown.
 */
export async function* applyJournal(
  entries: AsyncIterable<Entry>,
  journal: JournalState,
  retryUnknown: boolean,
  counts: ResumeCounts,
): AsyncGenerator<Entry> {
  for await (const entry of entries) {
    if (entry.kind !== 'message') {
      yield entry;
      continue;
    }
    const previous = journal.results.get(entry.row);
    if (previous && settles(previous.outcome, retryUnknown)) {
      counts.fromJournal++;
      yield {
        kind: 'final',
        row: entry.row,
        to: entry.to,
        messageId: entry.messageId,
        result: previous,
        attempts: previous.attempts,
        earlier: true,
      };
      continue;
    }
    const sentTimes = journal.inFlight.get(entry.row);
    if (sentTimes !== undefined && !retryUnknown) {
      counts.inFlight++;
      yield {
        kind: 'final',
        row: entry.row,
        to: entry.to,
        messageId: entry.messageId,
        attempts: sentTimes,
        result: {
          outcome: 'unknown',
          error: 'sent by an interrupted run that got no answer; --retry-unknown sends it again',
        },
        earlier: true,
      };
      continue;
    }
    yield entry;
  }
}
