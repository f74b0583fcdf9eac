// Step four of a campaign that continues: what earlier runs settled, read once: the journal it
// continues (a finished campaign's only now, its manifest having not answered), the rows its
// follow-ups re-sent, and whether a row is still this run's to send.
import type { JournalState } from '../../journal/reading.js';
import { unsentStateError } from '../../shared/errors.js';
import { rowsResent } from '../follow-up/index.js';
import type { CampaignRun } from '../run.js';
import type { Look, RunHold } from './hold.js';
import type { Identified } from './identify.js';
import { settledRows } from './resume.js';

/** What earlier runs of the campaign settled, as this run reads it. */
export interface Settled {
  /** The journal this run continues: none for a campaign that starts. */
  journal: JournalState | undefined;
  /** Rows of this campaign its follow-ups re-sent (a resume of the original leaves them). */
  resent: ReadonlyMap<number, string> | undefined;
  /** Whether an earlier run settled a row: not this run's to send. */
  readonly isSettled: (row: number) => boolean;
}

export async function readSettled(
  run: CampaignRun,
  identified: Identified,
  hold: RunHold | Look,
): Promise<Settled> {
  try {
    const journal = await continued(hold);
    if (!journal) return { journal, resent: undefined, isSettled: () => false };
    const resent = await resentRows(run, identified);
    const isSettled = settledRows(journal, run.choices.retryUnknown === true, resent);
    return { journal, resent, isSettled };
  } catch (error) {
    // Nothing is sent while a campaign is read: a state that refuses here refuses the run.
    throw unsentStateError(error) ?? error;
  }
}

/** The journal to continue; a finished campaign's read now (a dry run's look has read it). */
function continued(
  hold: RunHold | Look,
): Promise<JournalState | undefined> | JournalState | undefined {
  const { found } = hold;
  if (found.journal || !found.finished || hold.kind === 'look') return found.journal;
  return hold.claim.readJournal();
}

/** Rows a follow-up re-sent are the follow-up's now: a resume of the original leaves them. */
async function resentRows(
  run: CampaignRun,
  { identity, shape }: Identified,
): Promise<ReadonlyMap<number, string> | undefined> {
  if (run.followUp) return undefined;
  return rowsResent(run.store, identity.id, shape.target, { program: run.program });
}
