// The journaled send: report, journal and resume around the send loop. Knows files, not terminals.
import { resultAt, rowsOf, type SettledResult } from '../../journal/columns.js';
import {
  archiveJournal,
  resultLine,
  JOURNAL_VERSION,
  JournalWriter,
  batchLine,
  type JournalLine,
  type JournalState,
} from '../../journal/journal.js';
import { ReportSink } from '../../report/sink.js';
import type { RowResult } from '../../message/outcome.js';
import { reportColumns } from '../../report/row.js';
import { systemClock, type Clock } from '../../shared/clock.js';
import { openReport } from '../../report/writer.js';
import type { SendEmitter } from '../../send/events.js';
import { RateLimiter } from '../../send/rate.js';
import {
  applyJournal,
  earlierOnly,
  maybeEarlier,
  noResumeCounts,
  settledRows,
  withoutEarlier,
  type Earlier,
} from './resume.js';
import type { ResumeCounts, RunResult } from '../types.js';
import { backoffDelay } from '../../shared/backoff.js';
import { sendLoop } from '../../send/send.js';
import { StateWriteError, toRow } from '../../send/state.js';
import type { Poster, SendLoopOptions, SendOutcome } from '../../send/types.js';
import { describeSystemError, leadingTo, UsageError } from '../../shared/errors.js';
import { stateLeft } from './state-left.js';
import type { Entry } from '../../validate/entries.js';

export interface RunOptions {
  /** In chunks of any size (see sendLoop()). */
  entries: AsyncIterable<readonly Entry[]>;
  /**
   * The same entries read again from the start, passing over messages whose rows `keep` turns
   * down: given, a resume reads what it sends from one reading and, after its first request, what
   * earlier runs settled from another (see docs/architecture.md#resume).
   */
  reread?: (keep?: (row: number) => boolean) => AsyncIterable<readonly Entry[]>;
  reportPath: string;
  /** The campaign's journal, in its state folder. */
  journalPath: string;
  /** The campaign's content hash, written at the start of each run. */
  contentHash: string;
  /** What earlier runs recorded: given, this run continues the campaign (--resume). */
  previous?: JournalState;
  /** Rows of this campaign its follow-ups re-sent: a resume reports them, never sends them. */
  resent?: ReadonlyMap<number, string>;
  /** MessageIds an earlier report holds a delivery report for: a resume takes them as accepted. */
  delivered?: (messageId: string) => boolean;
  /** Replace an existing report file (--force, --resume: the journal rewrites it complete). */
  overwriteReport: boolean;
  /** The report has a `normalized` column (--gsm-normalize). */
  normalizedColumn?: boolean;
  retryUnknown: boolean;
  poster: Poster;
  batchSize: number;
  concurrency: number;
  retries: number;
  /** How long an unusable gateway is waited for before the run stops (0: never). */
  outageGraceMs?: number;
  rate?: number;
  stopSignal?: AbortSignal;
  abortSignal?: AbortSignal;
  /** Asked before each new batch: false once the send window has closed. */
  windowOpen?: () => boolean;
  /** Wall time for waits and the outage grace; the system's unless a test injects one. */
  clock?: Clock;
  /**
   * A follow-up campaign's link from a row to the MessageId it re-sends: the report gets an
   * originalMessageId column.
   */
  originalMessageId?: (row: number) => string | undefined;
}

export async function runCampaign(options: RunOptions, events: SendEmitter): Promise<RunResult> {
  const { previous } = options;
  // A journal that is not continued belongs to a run that sent nothing, or to --force, whose
  // earlier journal is set aside (not deleted) only now that this run starts sending.
  if (!previous) {
    await archiveJournal(options.journalPath).catch((error: unknown) => {
      throw notStarted(error);
    });
  }
  const run = (previous?.runs ?? 0) + 1;
  // The journal before the report: answers taken from the earlier report are journaled before
  // this run's report, which may be the same file, replaces it.
  const journal = await startJournal(options, run);
  const sink = await openSink(options).catch(async (error: unknown) => {
    await journal.close().catch(noop);
    throw error;
  });
  const unwire = wireReport(options, sink, events);
  const resumed = previous ? noResumeCounts() : undefined;
  const streams = entryStreams(options, resumed);
  let outcome: SendOutcome | undefined;
  let reportDurable = false;
  try {
    outcome = await sendAndReport(streams, loopOptions(options, journal, sink, run), events);
  } finally {
    unwire();
    reportDurable = await endState(journal, sink, outcome, options, events);
  }
  const left = outcome.stopped?.stateUnwritable
    ? await stateLeft({ ...options, reportDurable }, unrecordedAnswers(journal))
    : undefined;
  return { ...outcome, resumed, left };
}

/**
 * The send loop, and on a resume the records earlier runs settled, reported once the loop is done:
 * reported beside it, they multiplied what survived V8's young collections (see
 * docs/architecture.md#resume).
 */
async function sendAndReport(
  streams: ReturnType<typeof entryStreams>,
  loop: SendLoopOptions,
  events: SendEmitter,
): Promise<SendOutcome> {
  const sending = sendLoop(streams.entries, loop, events);
  const { settled } = streams;
  const reporting = settled
    ? sending.then(noop, noop).then(() => reportEarlier(settled(), events))
    : undefined;
  const [sent, reported] = await Promise.allSettled([sending, reporting]);
  if (sent.status === 'rejected') throw sent.reason;
  if (reported.status === 'rejected') throw reported.reason;
  return sent.value;
}

/** Opens the report; its rows are written as results arrive. */
async function openSink(options: RunOptions): Promise<ReportSink> {
  const writer = await openReport(options.reportPath, {
    force: options.overwriteReport,
    columns: reportColumns({
      normalized: options.normalizedColumn === true,
      followUp: options.originalMessageId !== undefined,
    }),
  });
  return new ReportSink(writer);
}

/** Each record's row goes to the report, written after each batch; returns the unwiring. */
function wireReport(options: RunOptions, sink: ReportSink, events: SendEmitter): () => void {
  const link = options.originalMessageId;
  const onRecord = link
    ? (row: RowResult) => sink.add({ ...row, originalMessageId: link(row.row) })
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
  journal: JournalWriter,
  sink: ReportSink,
  outcome: SendOutcome | undefined,
  options: RunOptions,
  events: SendEmitter,
): Promise<boolean> {
  // The results written since the last synced intent reach the disk here; a sync that fails
  // holds them like any failed write.
  const kept = (await journal.settle()) || (await keepAnswers(journal, options, events));
  if (outcome && !kept) stopFor(outcome, stateReason(journal.failure!));
  const reportFailure = await sink.close().then(
    () => undefined,
    (error: unknown) => error,
  );
  if (outcome && reportFailure !== undefined) {
    stopFor(outcome, reportReason(options.reportPath, reportFailure));
  }
  // After a write failed, closing can fail the same way; what was written stays written.
  await journal.close().catch((error: unknown) => {
    if (!outcome?.stopped?.stateUnwritable) throw error;
  });
  return reportFailure === undefined;
}

/** Marks a run that did not stop for another reason as stopped by unwritable state. */
function stopFor(outcome: SendOutcome, reason: string): void {
  outcome.stopped ??= { reason, authRefused: false, stateUnwritable: true };
}

function stateReason(error: unknown): string {
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
async function keepAnswers(
  journal: JournalWriter,
  options: RunOptions,
  events: SendEmitter,
): Promise<boolean> {
  const clock = options.clock ?? systemClock;
  const graceMs = options.outageGraceMs ?? 0;
  const started = clock.now();
  for (let attempt = 1; ; attempt++) {
    if (await journal.rewrite()) {
      if (attempt > 1) events.emit('stateKept', { afterMs: clock.now() - started });
      return true;
    }
    const leftMs = graceMs - (clock.now() - started);
    if (leftMs <= 0 || options.stopSignal?.aborted) return false;
    if (attempt === 1) {
      const answers = unrecordedAnswers(journal).length;
      events.emit('stateHeld', { answers, reason: stateReason(journal.failure), graceMs });
    }
    const waitMs = Math.min(leftMs, 250 + backoffDelay(attempt));
    await clock.sleepUntil(clock.now() + waitMs, options.stopSignal);
  }
}

/** The results the journal holds but could not write: each row with its result. */
function unrecordedAnswers(journal: JournalWriter): SettledResult[] {
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
  options: RunOptions,
  counts: ResumeCounts | undefined,
): { entries: AsyncIterable<readonly Entry[]>; settled?: () => AsyncIterable<readonly Entry[]> } {
  const { previous, reread } = options;
  if (!previous || !counts) return { entries: options.entries };
  const earlier: Earlier = {
    journal: previous,
    retryUnknown: options.retryUnknown,
    counts,
    resent: options.resent,
    delivered: options.delivered,
  };
  if (!reread) return { entries: applyJournal(options.entries, earlier) };
  // Each reading passes over the rows it surely has no use for: isEarlier() decides the rest.
  const settled = settledRows(previous, options.retryUnknown, options.resent);
  return {
    entries: withoutEarlier(
      reread((row) => !settled(row)),
      earlier,
    ),
    settled: () => earlierOnly(reread(maybeEarlier(earlier)), earlier),
  };
}

/**
 * The send loop's options: the run's settings, and the journal's lines around each request. A
 * report that cannot be written stops new batches too: --resume writes it whole from the journal.
 */
function loopOptions(
  options: RunOptions,
  journal: JournalWriter,
  sink: ReportSink,
  run: number,
): SendLoopOptions {
  const clock = options.clock ?? systemClock;
  // A result is journaled whatever else failed (held, if the journal cannot take it); it is the
  // next intent a failed report refuses, so no batch goes out that could not be reported.
  const refuseOnFailure = () => {
    if (journal.failure) throw new StateWriteError(stateReason(journal.failure));
    if (sink.failure) throw new StateWriteError(reportReason(options.reportPath, sink.failure));
  };
  // An intent, once recorded, is sent whatever fails meanwhile: the journal says it may have left.
  const intent = async (line: JournalLine) => {
    refuseOnFailure();
    await journal.append(line).catch((error: unknown) => {
      throw new StateWriteError(stateReason(error));
    });
  };
  const recorded = async (line: JournalLine) => {
    await journal.append(line).catch(noop);
    refuseOnFailure();
  };
  return {
    poster: options.poster,
    batchSize: options.batchSize,
    concurrency: options.concurrency,
    retries: options.retries,
    outageGraceMs: options.outageGraceMs,
    retryUnknown: options.retryUnknown,
    // The limiter keeps its own monotonic clock unless a test brings one.
    limiter: new RateLimiter(options.rate, options.clock),
    stopSignal: options.stopSignal,
    abortSignal: options.abortSignal,
    windowOpen: options.windowOpen,
    clock,
    hooks: {
      beforeSend: (batch, rows) => intent(batchLine(`${run}:${batch}`, rows)),
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
async function startJournal(options: RunOptions, run: number): Promise<JournalWriter> {
  const journal = await JournalWriter.open(options.journalPath).catch((error: unknown) => {
    throw notStarted(error);
  });
  try {
    const start = journal.append({
      t: 'start',
      v: JOURNAL_VERSION,
      campaign: options.contentHash,
      run,
      at: new Date().toISOString(),
    });
    const adopted = options.previous?.adopted;
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
function notStarted(error: unknown): UsageError {
  const stop = new UsageError(`${stateReason(error)}. Nothing was sent.`, 'state-unwritable');
  return leadingTo(stop, {
    say: 'Once there is room, send it',
    add: ['--resume'],
    drop: ['--force'],
  });
}
