// How a campaign stands once a run stopped because its state could not be written, counted the way
// the --resume that finishes it counts, from the files it will read: the stop message says exactly
// what that resume then finds (docs/campaign-state.md#when-the-disk-fails).
import { rangesOf, type SettledResult } from '../../journal/columns.js';
import { emptyJournalState, readJournal } from '../../journal/journal.js';
import { takeAnswersFromReport, type SpoolReader } from './kept-answers.js';
import { earlierResult, isEarlier, noResumeCounts, type Earlier } from './resume.js';
import type { StateLeft } from '../types.js';
import { SpoolUnreadableError } from '../../validate/spool.js';

/** What the resume reads, as the run that stopped knows it. */
export interface LeftBehind {
  journalPath: string;
  reportPath: string;
  /** The spool, read again; without it nothing is counted. */
  reread?: SpoolReader;
  retryUnknown: boolean;
  resent?: ReadonlyMap<number, string>;
  delivered?: (messageId: string) => boolean;
}

/** The campaign as the resume will find it; `held`: the answers the journal could not record. */
export async function stateLeft(
  files: LeftBehind,
  held: readonly SettledResult[],
): Promise<StateLeft | undefined> {
  const { reread } = files;
  if (!reread) return undefined;
  try {
    return await countLeft(files, reread, held);
  } catch (error) {
    // A spool that does not read back cannot be counted from: the resume validates again.
    if (error instanceof SpoolUnreadableError) return undefined;
    throw error;
  }
}

async function countLeft(
  files: LeftBehind,
  reread: SpoolReader,
  held: readonly SettledResult[],
): Promise<StateLeft> {
  const journal = (await readJournal(files.journalPath)) ?? emptyJournalState();
  await takeAnswersFromReport(journal, files.reportPath, reread);
  const counts = noResumeCounts();
  const earlier: Earlier = {
    journal,
    retryUnknown: files.retryUnknown,
    counts,
    resent: files.resent,
    delivered: files.delivered,
  };
  let toSend = 0;
  for await (const chunk of reread()) {
    for (const entry of chunk) {
      if (isEarlier(entry, earlier)) earlierResult(entry, earlier);
      else if (entry.kind === 'message') toSend++;
    }
  }
  const lost = held
    .filter(({ outcome, row }) => isAnswer(outcome) && journal.results.outcome(row) === undefined)
    .map((result) => result.row)
    .sort((p, q) => p - q);
  return {
    settled: counts.fromJournal,
    inReport: counts.fromReport,
    sentNoAnswer: counts.inFlight,
    unposted: counts.unposted,
    toSend,
    lost: rangesOf(lost),
  };
}

/** An outcome the gateway's answer decided. */
function isAnswer(outcome: string): boolean {
  return outcome === 'accepted' || outcome === 'rejected';
}
