// How a campaign stands once a run stopped because its state could not be written, counted the way
// the --resume that finishes it counts, from the files it will read: the stop message says exactly
// what that resume then finds (docs/campaign-state.md#when-the-disk-fails).
import type { SettledResult } from '../../journal/columns.js';
import type { JournalState } from '../../journal/reading.js';
import { takeAnswersFromReport, type SpoolReader } from '../kept-answers.js';
import { earlierResult, isEarlier, noResumeCounts, type Earlier } from './resume.js';
import type { LostAnswer, StateLeft } from '../types.js';
import { SpoolUnreadableError } from '../../validate/spool.js';

/** What the resume reads, as the run that stopped knows it. */
export interface LeftBehind {
  /** The journal as it stands now. */
  readJournal(): Promise<JournalState>;
  reportPath: string;
  /** The spool, read again; without it nothing is counted. */
  reread?: SpoolReader;
  /**
   * The report was synced when the run closed it: only then are the answers it holds kept. A
   * report whose sync failed may lose them in a power cut (the kernel may have dropped its pages).
   */
  reportDurable: boolean;
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
  const journal = await files.readJournal();
  if (files.reportDurable) await takeAnswersFromReport(journal, files.reportPath, reread);
  const lostRows = new Map(
    held
      .filter(({ outcome, row }) => isAnswer(outcome) && journal.results.outcome(row) === undefined)
      .map((result) => [result.row, result]),
  );
  const lost: LostAnswer[] = [];
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
      const answer = lostRows.get(entry.row);
      if (answer) lost.push(lostAnswer(answer, entry.messageId));
      if (isEarlier(entry, earlier)) earlierResult(entry, earlier);
      else if (entry.kind === 'message') toSend++;
    }
  }
  return {
    settled: counts.fromJournal,
    inReport: counts.fromReport,
    sentNoAnswer: counts.inFlight,
    unposted: counts.unposted,
    toSend,
    lost,
  };
}

/** What the operator keeps of an answer that could not be kept on the disk. */
function lostAnswer(result: SettledResult, messageId: string): LostAnswer {
  return {
    row: result.row,
    messageId,
    outcome: result.outcome,
    ...(result.statusCode === undefined ? {} : { statusCode: result.statusCode }),
    ...(result.transactionId === undefined ? {} : { transactionId: result.transactionId }),
  };
}

/** An outcome the gateway's answer decided. */
function isAnswer(outcome: string): boolean {
  return outcome === 'accepted' || outcome === 'rejected';
}
