// The journal around each request of the send loop: a batch recorded before it leaves, its answer
// after; the journal opened with this run's start, and what stops the loop when the journal (or
// the report) refuses.
import {
  batchLine,
  JOURNAL_VERSION,
  resultLine,
  type JournalLine,
  type JournalSink,
} from '../../journal/lines.js';
import { HoldLostError } from '../../journal/store.js';
import type { ReportSink } from '../../report/sink.js';
import { windowGate } from '../../send/schedule.js';
import { StateWriteError } from '../../send/state.js';
import type { LoopGateway, Poster } from '../../send/types.js';
import {
  leadingTo,
  LockedError,
  SmsSendError,
  StateStoreError,
  unsentStateError,
  UsageError,
} from '../../shared/errors.js';
import { reportReason, stateReason } from './end-state.js';
import type { Sending } from './sending.js';

/** What stops the send loop when the journal refuses: exit 6, or exit 4 for a takeover. */
function stateWriteError(error: unknown): StateWriteError {
  return new StateWriteError(stateReason(error), error instanceof HoldLostError);
}

/**
 * The send loop's options: the run's settings, and the journal's lines around each request. A
 * report that cannot be written stops new batches too: --resume writes it whole from the journal.
 */
export function loopGateway(
  { run, campaign }: Sending,
  journal: JournalSink,
  sink: ReportSink,
  runNumber: number,
  poster: Poster,
): LoopGateway {
  const window = run.settings.sendWindow;
  // A result is journaled whatever else failed (held, if the journal cannot take it); it is the
  // next intent a failed report refuses, so no batch goes out that could not be reported.
  const refuseOnFailure = () => {
    if (journal.failure) throw stateWriteError(journal.failure);
    if (sink.failure) throw new StateWriteError(reportReason(campaign.reportPath, sink.failure));
  };
  // An intent, once recorded, is sent whatever fails meanwhile: the journal says it may have left.
  const intent = async (line: JournalLine) => {
    refuseOnFailure();
    await journal.append(line).catch((error: unknown) => {
      throw stateWriteError(error);
    });
  };
  const recorded = async (line: JournalLine) => {
    await journal.append(line).catch(noop);
    refuseOnFailure();
  };
  return {
    poster,
    windowOpen: window ? windowGate(window, run.io.clock) : undefined,
    hooks: {
      beforeSend: (batch, rows, recipients) =>
        intent(batchLine(`${runNumber}:${batch}`, rows, recipients)),
      posted: (batch) => void journal.append({ t: 'posted', b: `${runNumber}:${batch}` }),
      notSent: (batch) => intent({ t: 'unsent', b: `${runNumber}:${batch}` }),
      afterResult: (batch, rows) => recorded(resultLine(`${runNumber}:${batch}`, rows)),
    },
  };
}

/**
 * Opens the journal and records this run's start, with the answers this run took from the earlier
 * report (synced with the start). A journal that is not continued belongs to a run that sent
 * nothing, or to --force, whose earlier journal is set aside (not deleted) only now that this run
 * starts sending. State that cannot be written (a full disk) stops the run here, before anything
 * is sent.
 */
export async function startJournal(
  { run, campaign, hold, settled }: Sending,
  runNumber: number,
): Promise<JournalSink> {
  const { journal: earlier } = settled;
  const freshAt = earlier ? undefined : run.io.clock.now();
  const journal = await hold.claim.openJournal(freshAt).catch((error: unknown) => {
    throw notStarted(error);
  });
  try {
    const start = journal.append({
      t: 'start',
      v: JOURNAL_VERSION,
      campaign: campaign.identity.contentHash,
      run: runNumber,
      at: new Date(run.io.clock.now()).toISOString(),
    });
    const adopted = earlier?.adopted;
    if (adopted) void journal.append(resultLine('report', [...adopted.values()]));
    await start;
    if (journal.failure) throw journal.failure;
    return journal;
  } catch (error) {
    await journal.close().catch(() => undefined);
    throw notStarted(error);
  }
}

/**
 * The journal could not be started: nothing was sent, so the refusal is exit 2, as every state
 * write that fails before the first batch is. The campaign is marked running by now, so what
 * moves on is --resume (which starts it, since nothing of it was sent).
 */
export function notStarted(error: unknown): SmsSendError {
  if (error instanceof SmsSendError) return error;
  if (error instanceof HoldLostError) {
    return new LockedError(`${error.message} before this run sent anything: nothing was sent`);
  }
  // A database that refused or did not answer says so, in its words (exit 2, exit 6).
  if (error instanceof StateStoreError) return unsentStateError(error)!;
  const stop = new UsageError(`${stateReason(error)}. Nothing was sent.`, 'state-unwritable');
  return leadingTo(stop, {
    say: 'Once there is room, send it',
    add: ['--resume'],
    drop: ['--force'],
  });
}

function noop(): void {}
