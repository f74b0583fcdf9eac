// Step nine of a campaign, the journaled send: the send loop streams the spool in batches, and the
// journal (journal-hooks.ts) and the report are written around it; a resume reports what earlier
// runs settled. Knows files, not terminals.
import type { RowResult } from '../../message/outcome.js';
import { reportColumns } from '../../report/row.js';
import { ReportSink } from '../../report/sink.js';
import { openReport } from '../../report/writer.js';
import type { SendEmitter } from '../../send/events.js';
import { sendLoop } from '../../send/send.js';
import { toRow } from '../../send/state.js';
import type { LoopGateway, Poster, SendOutcome } from '../../send/types.js';
import type { Entry } from '../../validate/entries.js';
import { SpoolUnreadableError } from '../../validate/spool.js';
import type { CampaignRun } from '../run.js';
import type { ResumeCounts, SendResult } from '../types.js';
import type { Deliveries } from './deliveries.js';
import { endState, leftFor, stopFor } from './end-state.js';
import type { RunHold } from './hold.js';
import { loopGateway, startJournal } from './journal-hooks.js';
import { unstamp } from './kept-spool.js';
import type { Validated } from './planned.js';
import {
  earlierOnly,
  maybeEarlier,
  noResumeCounts,
  withoutEarlier,
  type Earlier,
} from './resume.js';
import { checkedSpool, type Sending } from './sending.js';
import type { Settled } from './settled.js';
import { normalizes } from './validation-pass.js';

/**
 * Sends the campaign from its spool, each batch journaled before its request leaves and each
 * outcome written to the report as it arrives. Returns how the run ended and how many records may
 * have gone out.
 */
export async function journaledSend(
  run: CampaignRun,
  campaign: Validated,
  hold: RunHold,
  settled: Settled,
  deliveries: Deliveries | undefined,
  poster: Poster,
): Promise<{ result: SendResult; sent: number }> {
  const { events } = run.io;
  const onRecord = campaign.tally.add.bind(campaign.tally);
  events.on('record', onRecord);
  let sent = 0;
  // Batches refused or never answered were not sent; an unknown one may have been, so counts.
  const onBatch = (batch: { size: number; verdict: string }) => {
    if (batch.verdict !== 'failed') sent += batch.size;
  };
  events.on('batch', onBatch);
  const spool = checkedSpool(hold.local.spool, campaign.plan.records);
  let result: SendResult;
  try {
    const delivered = deliveries ? (id: string) => deliveries.get(id) !== undefined : undefined;
    result = await sendJournaled({ run, campaign, hold, settled, spool, delivered }, poster);
  } finally {
    events.off('record', onRecord);
    events.off('batch', onBatch);
  }
  // A spool that did not read back as written is not kept for the next run: it validates again.
  if (spool.unreadable) await unstamp(hold.local).catch(() => undefined);
  return { result, sent };
}

/** Report and journal around the send loop; on a resume, the journal of earlier runs continued. */
async function sendJournaled(sending: Sending, poster: Poster): Promise<SendResult> {
  const earlier = sending.settled.journal;
  const runNumber = (earlier?.runs ?? 0) + 1;
  // The journal before the report: answers taken from the earlier report are journaled before
  // this run's report, which may be the same file, replaces it.
  const journal = await startJournal(sending, runNumber);
  const sink = await openSink(sending).catch(async (error: unknown) => {
    await journal.close().catch(noop);
    throw error;
  });
  const unwire = wireReport(sending, sink);
  const resumed = earlier ? noResumeCounts() : undefined;
  const streams = entryStreams(sending, resumed);
  const gateway = loopGateway(sending, journal, sink, runNumber, poster);
  let outcome: SendOutcome | undefined;
  let reportDurable = false;
  try {
    outcome = await sendAndReport(streams, sending.run, gateway);
  } finally {
    unwire();
    reportDurable = await endState(journal, sink, outcome, sending);
  }
  const left = outcome.stopped?.stateUnwritable
    ? await leftFor(sending, journal, reportDurable)
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
async function openSink({ run, campaign, hold }: Sending): Promise<ReportSink> {
  const writer = await openReport(campaign.reportPath, {
    // --force and --resume replace the report: the journal rewrites it complete.
    force: run.choices.force === true || hold.resume,
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
 * What the send loop reads: the entries, or on a resume those no earlier run settled; and then
 * the settled ones, read again, to report (when the entries can be read again).
 */
function entryStreams(
  { run, settled, spool, delivered }: Sending,
  counts: ResumeCounts | undefined,
): { entries: AsyncIterable<readonly Entry[]>; settled?: () => AsyncIterable<readonly Entry[]> } {
  const { journal, resent, isSettled } = settled;
  if (!journal || !counts) return { entries: spool.read() };
  const earlier: Earlier = {
    journal,
    retryUnknown: run.choices.retryUnknown === true,
    counts,
    resent,
    delivered,
  };
  // Each reading passes over the rows it surely has no use for: isEarlier() decides the rest.
  return {
    entries: withoutEarlier(
      spool.read((row) => !isSettled(row)),
      earlier,
    ),
    settled: () => earlierOnly(spool.read(maybeEarlier(earlier)), earlier),
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

function noop(): void {}
