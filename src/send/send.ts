// The send loop: batches from a stream, a fixed number of workers, each taking the next batch
// until the stream ends or the run stops; a batch's retries are batch.ts's, shared state state.ts's.
import { isDiskError } from '../shared/errors.js';
import type { Entry } from '../validate/entries.js';
import { SpoolUnreadableError } from '../validate/spool.js';
import { sendBatch } from './batch.js';
import { batches } from './batcher.js';
import { SendState, toRow } from './state.js';
import type { LoopGateway, LoopRun, MessageEntry, SendOutcome } from './types.js';

/** `entries` comes in chunks (any size): the stream costs one await per chunk, not per record. */
export async function sendLoop(
  entries: AsyncIterable<readonly Entry[]>,
  loop: LoopRun,
  gateway: LoopGateway,
): Promise<SendOutcome> {
  const run = new SendState(loop, gateway);
  const { events } = run;
  const pending = batches(entries, loop.settings.batchSize, (entry) =>
    events.emit('record', toRow(entry, entry.result, entry.attempts ?? 0), entry.earlier),
  )[Symbol.asyncIterator]();
  await Promise.all(Array.from({ length: loop.settings.concurrency }, () => worker(run, pending)));
  if (run.attempted && !run.reached && !run.interrupted()) {
    run.stop(`the gateway was never reached: ${run.lastReason}`, false);
  }
  // Every record must end in the report, also those never attempted.
  if (run.halted()) await reportNotSent(run, pending);
  const closed = !run.stopped && !run.interrupted() && run.windowClosed && run.notSent > 0;
  return {
    stopped: run.stopped,
    interrupted: !run.stopped && run.interrupted(),
    notSent: run.notSent,
    windowClosed: closed || undefined,
    ...(run.rehearsal ? { rehearsal: true as const } : {}),
  };
}

async function worker(run: SendState, pending: AsyncIterator<MessageEntry[]>): Promise<void> {
  while (!run.halted()) {
    // While the gateway is being probed, no new batch goes out.
    if (run.outage && !(await run.outage)) return;
    run.windowShut();
    if (run.halted()) return;
    const next = await nextBatch(run, pending);
    if (!next) return;
    await sendBatch(run, next);
  }
}

/**
 * The next batch, or undefined when there is none: the stream ended, or it failed (its records
 * could not be read back), which stops the run as state it cannot rely on, nothing of it sent.
 */
async function nextBatch(
  run: SendState,
  pending: AsyncIterator<MessageEntry[]>,
): Promise<MessageEntry[] | undefined> {
  try {
    const next = await pending.next();
    return next.done ? undefined : next.value;
  } catch (error) {
    // A spool that does not read back, or a disk that fails reading it: state the run cannot
    // rely on. Anything else is a bug, and ends the run as one.
    if (!(error instanceof SpoolUnreadableError) && !isDiskError(error)) throw error;
    run.stop((error as Error).message, false, true);
    return undefined;
  }
}

/** The records a stopped, interrupted or closed run never took, each reported as not sent. */
async function reportNotSent(
  run: SendState,
  pending: AsyncIterator<MessageEntry[]>,
): Promise<void> {
  const result = run.notSentResult();
  for (;;) {
    const next = await nextBatch(run, pending);
    if (!next) break;
    for (const entry of next) {
      run.notSent++;
      run.events.emit('record', toRow(entry, result, 0));
    }
  }
}
