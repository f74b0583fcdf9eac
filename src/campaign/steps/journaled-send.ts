// Step eight of a campaign, the journaled send: the report, the journal and a resume's reading of
// earlier runs around the send loop. Knows files, not terminals.
import type { Claim } from '../../journal/claim.js';
import { HoldLostError } from '../../journal/store.js';
import { resultAt, rowsOf, type SettledResult } from '../../journal/columns.js';
import {
  batchLine,
  JOURNAL_VERSION,
  resultLine,
  type JournalLine,
  type JournalSink,
} from '../../journal/journal.js';
import { recordedDeliveries, restoreDeliveries } from '../../dlr/carry.js';
import type { RowResult } from '../../message/outcome.js';
import { reportColumns } from '../../report/row.js';
import { ReportSink } from '../../report/sink.js';
import { openReport } from '../../report/writer.js';
import type { SendEmitter } from '../../send/events.js';
import { windowGate } from '../../send/schedule.js';
import { sendLoop } from '../../send/send.js';
import { StateWriteError, toRow } from '../../send/state.js';
import type { LoopGateway, Poster, SendOutcome } from '../../send/types.js';
import { backoffDelay } from '../../shared/backoff.js';
import {
  describeSystemError,
  leadingTo,
  LockedError,
  SmsSendError,
  StateStoreError,
  unsentStateError,
  UsageError,
} from '../../shared/errors.js';
import type { Entry } from '../../validate/entries.js';
import { readSpool, SpoolUnreadableError } from '../../validate/spool.js';
import type { CampaignRun } from '../run.js';
import type { ResumeCounts, RunResult } from '../types.js';
import { unstamp } from './kept-spool.js';
import {
  earlierOnly,
  maybeEarlier,
  noResumeCounts,
  settledRows,
  withoutEarlier,
  type Earlier,
} from './resume.js';
import { stateLeft, type LeftBehind } from './state-left.js';
import type { Validated } from './validate.js';
import { normalizes } from './validation-pass.js';

/** What the send writes to and reads from: the claimed state, and the spool read back, checked. */
interface Sending {
  run: CampaignRun;
  campaign: Validated;
  claim: Claim;
  spool: CheckedSpool;
  /** MessageIds an earlier report holds a delivery report for: a resume takes them as accepted. */
  delivered?: (messageId: string) => boolean;
}

/**
 * Step eight of a campaign: the send loop streams the spool in batches, journals each batch before
 * its request leaves, posts it, and turns the answer into one outcome per record, each written to
 * the report as it arrives. Returns how the run ended and how many records may have gone out.
 */
export async function journaledSend(
  run: CampaignRun,
  campaign: Validated,
  claim: Claim,
  poster: Poster,
): Promise<{ result: RunResult; sent: number }> {
  const { events } = run.io;
  const onRecord = campaign.tally.add.bind(campaign.tally);
  events.on('record', onRecord);
  let sent = 0;
  // Batches refused or never answered were not sent; an unknown one may have been, so counts.
  const onBatch = (batch: { size: number; verdict: string }) => {
    if (batch.verdict !== 'failed') sent += batch.size;
  };
  events.on('batch', onBatch);
  // A resume writes the report afresh from the journal: the deliveries earlier reports recorded
  // are read first (the report may be rewritten in place) and written back once it is complete.
  // The newest earlier report has them all (each run writes its report complete); older ones may
  // be from before a --force run, whose same MessageIds they would wrongly settle.
  const newest = claim.previous?.reports.at(-1);
  const deliveries = claim.journal
    ? await recordedDeliveries(newest === undefined ? [] : [newest])
    : undefined;
  const spool = checkedSpool(claim.local.spool, campaign.plan.records);
  let result: RunResult;
  try {
    const delivered = deliveries ? (id: string) => deliveries.get(id) !== undefined : undefined;
    result = await sendJournaled({ run, campaign, claim, spool, delivered }, poster);
  } finally {
    events.off('record', onRecord);
    events.off('batch', onBatch);
  }
  // A spool that did not read back as written is not kept for the next run: it validates again.
  if (spool.unreadable) await unstamp(claim.local).catch(() => undefined);
  if (deliveries) await restoreDeliveries(campaign.reportPath, deliveries);
  return { result, sent };
}

/** The spool read back, each line checked and counted; whether a reading found it unreadable. */
interface CheckedSpool {
  unreadable: boolean;
  read(keep?: (row: number) => boolean): AsyncGenerator<Entry[]>;
}

function checkedSpool(path: string, lines: number): CheckedSpool {
  const spool: CheckedSpool = {
    unreadable: false,
    async *read(keep) {
      try {
        yield* readSpool(path, keep, lines);
      } catch (error) {
        if (error instanceof SpoolUnreadableError) spool.unreadable = true;
        throw error;
      }
    },
  };
  return spool;
}

/** Report and journal around the send loop; on a resume, the journal of earlier runs continued. */
async function sendJournaled(sending: Sending, poster: Poster): Promise<RunResult> {
  const { claim } = sending;
  const previous = claim.journal;
  // A journal that is not continued belongs to a run that sent nothing, or to --force, whose
  // earlier journal is set aside (not deleted) only now that this run starts sending.
  if (!previous) {
    await claim.archiveJournal(sending.run.io.clock.now()).catch((error: unknown) => {
      throw notStarted(error);
    });
  }
  const number = (previous?.runs ?? 0) + 1;
  // The journal before the report: answers taken from the earlier report are journaled before
  // this run's report, which may be the same file, replaces it.
  const journal = await startJournal(sending, number);
  const sink = await openSink(sending).catch(async (error: unknown) => {
    await journal.close().catch(noop);
    throw error;
  });
  const unwire = wireReport(sending, sink);
  const resumed = previous ? noResumeCounts() : undefined;
  const streams = entryStreams(sending, resumed);
  const gateway = loopGateway(sending, journal, sink, number, poster);
  let outcome: SendOutcome | undefined;
  let reportDurable = false;
  try {
    outcome = await sendAndReport(streams, sending.run, gateway);
  } finally {
    unwire();
    reportDurable = await endState(journal, sink, outcome, sending);
  }
  const left = outcome.stopped?.stateUnwritable
    ? await stateLeft(leftBehind(sending, reportDurable), unrecordedAnswers(journal)).catch(
        (error: unknown) => {
          // A database still down cannot be read back: the stop says what this run counted.
          if (error instanceof StateStoreError) return undefined;
          throw error;
        },
      )
    : undefined;
  return { ...outcome, resumed, left };
}

/** What the resume of a run that stopped on its state will read. */
function leftBehind(sending: Sending, reportDurable: boolean): LeftBehind {
  const { run, campaign, claim, spool, delivered } = sending;
  return {
    readJournal: () => claim.readJournal(),
    reportPath: campaign.reportPath,
    reread: (keep) => spool.read(keep),
    reportDurable,
    retryUnknown: run.choices.retryUnknown === true,
    resent: campaign.resent,
    delivered,
  };
}

/**
 * The send loop, and on a resume the records earlier runs settled, reported once the loop is done:
 * reported beside it, they multiplied what survived V8's young collections (see
 * docs/architecture.md#resume).
 */
async function sendAndReport(
  streams: ReturnType<typeof entryStreams>,
  run: CampaignRun,
  gateway: LoopGateway,
): Promise<SendOutcome> {
  const sending = sendLoop(streams.entries, run, gateway);
  const { settled } = streams;
  const reporting = settled
    ? sending.then(noop, noop).then(() => reportEarlier(settled(), run.io.events))
    : undefined;
  const [sent, reported] = await Promise.allSettled([sending, reporting]);
  if (sent.status === 'rejected') throw sent.reason;
  if (reported.status === 'rejected') {
    // The settled records could not be read back to report: the run stops on its state, and the
    // next resume (which validates again, the spool no longer kept) reports them.
    if (!(reported.reason instanceof SpoolUnreadableError)) throw reported.reason;
    stopFor(sent.value, reported.reason, reported.reason.message);
  }
  return sent.value;
}

/** Opens the report; its rows are written as results arrive. */
async function openSink({ run, campaign }: Sending): Promise<ReportSink> {
  const writer = await openReport(campaign.reportPath, {
    // --force and --resume replace the report: the journal rewrites it complete.
    force: run.choices.force === true || run.choices.resume === true,
    columns: reportColumns({
      normalized: normalizes(run),
      followUp: run.followUp !== undefined,
    }),
  });
  return new ReportSink(writer);
}

/** Each record's row goes to the report, written after each batch; returns the unwiring. */
function wireReport({ run }: Sending, sink: ReportSink): () => void {
  const { events } = run.io;
  // A follow-up's report links each row to the MessageId it re-sends.
  const rows = run.followUp?.rows;
  const onRecord = rows
    ? (row: RowResult) => sink.add({ ...row, originalMessageId: rows.get(row.row) })
    : sink.add.bind(sink);
  const flush = () => void sink.flush();
  events.on('record', onRecord);
  events.on('batch', flush);
  return () => {
    events.off('record', onRecord);
    events.off('batch', flush);
  };
}

/**
 * The end of a run's writing: answers the journal could not record are tried again, then the
 * report and the journal are closed. A run whose state could not be kept ends stopped (exit 6),
 * its sending done or not: --resume then finds what the journal and the report hold. True when
 * the report was written and synced whole: only then are the answers it holds kept.
 */
async function endState(
  journal: JournalSink,
  sink: ReportSink,
  outcome: SendOutcome | undefined,
  { run, campaign }: Sending,
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
 * Marks a run stopped by its state, once its state has failed: a stop for another reason stands,
 * but a takeover, once known, is what a stop on the state ends with, and a database's failure is
 * told as the database's.
 */
function stopFor(outcome: SendOutcome, failure: Error, reason = stateReason(failure)): void {
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

/** What stops the send loop when the journal refuses: exit 6, or exit 4 for a takeover. */
function stateWriteError(error: unknown): StateWriteError {
  return new StateWriteError(stateReason(error), error instanceof HoldLostError);
}

/** Why the state failed: a database in its own words, a disk's error described. */
function stateReason(error: unknown): string {
  if (error instanceof StateStoreError || error instanceof HoldLostError) return error.message;
  return `campaign state could not be written: ${describeSystemError(error)}`;
}

function reportReason(path: string, error: unknown): string {
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

function noop(): void {}

/**
 * What the send loop reads: the entries, or on a resume those no earlier run settled; and then
 * the settled ones, read again, to report (when the entries can be read again).
 */
function entryStreams(
  { run, campaign, claim, spool, delivered }: Sending,
  counts: ResumeCounts | undefined,
): { entries: AsyncIterable<readonly Entry[]>; settled?: () => AsyncIterable<readonly Entry[]> } {
  const previous = claim.journal;
  if (!previous || !counts) return { entries: spool.read() };
  const retryUnknown = run.choices.retryUnknown === true;
  const earlier: Earlier = {
    journal: previous,
    retryUnknown,
    counts,
    resent: campaign.resent,
    delivered,
  };
  // Each reading passes over the rows it surely has no use for: isEarlier() decides the rest.
  const settled = settledRows(previous, retryUnknown, campaign.resent);
  return {
    entries: withoutEarlier(
      spool.read((row) => !settled(row)),
      earlier,
    ),
    settled: () => earlierOnly(spool.read(maybeEarlier(earlier)), earlier),
  };
}

/**
 * The send loop's options: the run's settings, and the journal's lines around each request. A
 * report that cannot be written stops new batches too: --resume writes it whole from the journal.
 */
function loopGateway(
  { run: campaignRun, campaign }: Sending,
  journal: JournalSink,
  sink: ReportSink,
  run: number,
  poster: Poster,
): LoopGateway {
  const window = campaignRun.settings.sendWindow;
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
    if (!journal.mayPost()) throw stateWriteError(journal.failure);
  };
  const recorded = async (line: JournalLine) => {
    await journal.append(line).catch(noop);
    refuseOnFailure();
  };
  return {
    poster,
    windowOpen: window ? windowGate(window, campaignRun.io.clock) : undefined,
    hooks: {
      beforeSend: (batch, rows, recipients) =>
        intent(batchLine(`${run}:${batch}`, rows, recipients)),
      posted: (batch) => void journal.append({ t: 'posted', b: `${run}:${batch}` }),
      notSent: (batch) => intent({ t: 'unsent', b: `${run}:${batch}` }),
      afterResult: (batch, rows) => recorded(resultLine(`${run}:${batch}`, rows)),
    },
  };
}

/** Reports each record an earlier run settled, as the send loop reports its decided ones. */
async function reportEarlier(
  chunks: AsyncIterable<readonly Entry[]>,
  events: SendEmitter,
): Promise<void> {
  for await (const chunk of chunks) {
    for (const entry of chunk) {
      if (entry.kind !== 'final') continue;
      events.emit('record', toRow(entry, entry.result, entry.attempts ?? 0), true);
    }
  }
}

/**
 * Opens the journal and records this run's start, with the answers this run took from the earlier
 * report (synced with the start). State that cannot be written (a full disk) stops the run here,
 * before anything is sent.
 */
async function startJournal(
  { run: campaignRun, campaign, claim }: Sending,
  run: number,
): Promise<JournalSink> {
  const journal = await claim.openJournal().catch((error: unknown) => {
    throw notStarted(error);
  });
  try {
    const start = journal.append({
      t: 'start',
      v: JOURNAL_VERSION,
      campaign: campaign.identity.contentHash,
      run,
      at: new Date(campaignRun.io.clock.now()).toISOString(),
    });
    const adopted = claim.journal?.adopted;
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
function notStarted(error: unknown): SmsSendError {
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
