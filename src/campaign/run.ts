// The send pass of a campaign: report, journal and resume around send(). Knows files, not terminals.
import {
  archiveJournal,
  doneLine,
  JOURNAL_VERSION,
  JournalWriter,
  sendLine,
  type JournalState,
} from '../journal/journal.js';
import { ReportSink } from '../report/sink.js';
import type { RowResult } from '../message/outcome.js';
import { reportColumns } from '../report/row.js';
import { systemClock, type Clock } from '../shared/clock.js';
import { openReport } from '../report/writer.js';
import type { SendEmitter } from '../send/events.js';
import { RateLimiter } from '../send/rate.js';
import {
  applyJournal,
  earlierOnly,
  maybeEarlier,
  settledRows,
  withoutEarlier,
  type Earlier,
  type ResumeCounts,
} from './resume.js';
import { send } from '../send/send.js';
import { toRow } from '../send/state.js';
import type { Poster, SendOptions, SendOutcome } from '../send/types.js';
import { leadingTo, StateUnwritableError } from '../shared/errors.js';
import type { Entry } from '../validate/entries.js';

export interface RunOptions {
  /** In chunks of any size (see send()). */
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

export interface RunResult extends SendOutcome {
  resumed?: ResumeCounts;
}

export async function runCampaign(options: RunOptions, events: SendEmitter): Promise<RunResult> {
  const { previous } = options;
  // A journal that is not continued belongs to a run that sent nothing, or to --force, whose
  // earlier journal is set aside (not deleted) only now that this run starts sending.
  if (!previous) await archiveJournal(options.journalPath);

  // The journal holds every result of earlier runs, so the report can be written afresh.
  const link = options.originalMessageId;
  const writer = await openReport(options.reportPath, {
    force: options.overwriteReport,
    columns: reportColumns({
      normalized: options.normalizedColumn === true,
      followUp: link !== undefined,
    }),
  });
  const sink = new ReportSink(writer);
  const onRecord = link
    ? (row: RowResult) => sink.add({ ...row, originalMessageId: link(row.row) })
    : sink.add.bind(sink);
  events.on('record', onRecord);
  const flush = () => void sink.flush();
  events.on('batch', flush);

  const run = (previous?.runs ?? 0) + 1;
  const journal = await startJournal(options, run).catch(async (error: unknown) => {
    events.off('record', onRecord);
    events.off('batch', flush);
    await sink.close();
    throw error;
  });

  const resumed: ResumeCounts | undefined = previous ? { fromJournal: 0, inFlight: 0 } : undefined;
  const streams = entryStreams(options, resumed);
  let outcome: SendOutcome | undefined;
  try {
    const sending = send(streams.entries, loopOptions(options, journal, run), events);
    // The settled records are reported once the send loop is done: reported beside it, they
    // multiplied what survived V8's young collections (peak RSS 213 against 150 MB at 1,000,000
    // records, 384 against 251 MB on Node 24; see docs/architecture.md#resume).
    const { settled } = streams;
    const reporting = settled
      ? sending.then(noop, noop).then(() => reportEarlier(settled(), events))
      : undefined;
    const [sent, reported] = await Promise.allSettled([sending, reporting]);
    if (sent.status === 'rejected') throw sent.reason;
    if (reported.status === 'rejected') throw reported.reason;
    outcome = sent.value;
    return { ...outcome, resumed };
  } finally {
    events.off('record', onRecord);
    events.off('batch', flush);
    // After a write failed, closing can fail the same way; what was written stays written.
    await journal.close().catch((error: unknown) => {
      if (!outcome?.stopped?.stateUnwritable) throw error;
    });
    await sink.close();
  }
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

/** The send loop's options: the run's settings, and the journal's lines around each request. */
function loopOptions(options: RunOptions, journal: JournalWriter, run: number): SendOptions {
  const clock = options.clock ?? systemClock;
  return {
    poster: options.poster,
    batchSize: options.batchSize,
    concurrency: options.concurrency,
    retries: options.retries,
    outageGraceMs: options.outageGraceMs,
    retryUnknown: options.retryUnknown,
    limiter: new RateLimiter(options.rate),
    stopSignal: options.stopSignal,
    abortSignal: options.abortSignal,
    windowOpen: options.windowOpen,
    now: () => clock.now(),
    sleep: (ms) => clock.sleepUntil(clock.now() + ms),
    hooks: {
      beforeSend: (batch, rows) => journal.append(sendLine(`${run}:${batch}`, rows)),
      notSent: (batch) => journal.append({ t: 'unsent', b: `${run}:${batch}` }),
      afterResult: (batch, rows) => journal.append(doneLine(`${run}:${batch}`, rows)),
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
 * Opens the journal and records this run's start. State that cannot be written (a full disk)
 * stops the run here, before anything is sent.
 */
async function startJournal(options: RunOptions, run: number): Promise<JournalWriter> {
  const journal = await JournalWriter.open(options.journalPath);
  try {
    await journal.append({
      t: 'start',
      v: JOURNAL_VERSION,
      campaign: options.contentHash,
      run,
      at: new Date().toISOString(),
    });
    return journal;
  } catch (error) {
    await journal.close().catch(() => undefined);
    const stop = new StateUnwritableError(
      `campaign state could not be written: ${(error as Error).message}. Nothing was sent.`,
    );
    throw leadingTo(stop, {
      say: 'Once there is room, send it',
      add: ['--resume'],
      drop: ['--force'],
    });
  }
}
