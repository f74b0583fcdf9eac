// Records a run's sending over time from its events (answers and latency by the second, or coarser
// for a long run; pauses; when each row was answered) for the HTML page; written to the campaign's
// state folder when it ends.
import type { Settings } from '../../config/settings.js';
import type { SendEmitter } from '../../send/events.js';
import {
  BUCKET_STEPS_MS,
  bucketOf,
  rebucket,
  type BucketTuple,
  type PauseKind,
  type PauseTuple,
  type SentTuple,
  type TimelineRun,
} from './timeline.js';
import { describeWindow } from '../../shared/window.js';

/** Past this many buckets a run's are merged into the next longer step: a day-long run stays small. */
const MAX_BUCKETS = 2000;
/** Enough for a batch each of the largest campaigns at the default batch size, and no more. */
const MAX_SENT_ENTRIES = 100_000;

export interface TimelineRecorder {
  /**
   * The run as recorded so far, up to now; undefined while nothing was sent: a run that sent
   * nothing leaves no state (docs/architecture.md#journal-and-resume).
   */
  run(target: string): TimelineRun | undefined;
}

/** A run's batches by bucket: by the tenth of a second, merged into longer ones past MAX_BUCKETS. */
class Buckets {
  step = BUCKET_STEPS_MS[0]!;
  private byStart = new Map<number, BucketTuple>();

  add(at: number, answered: number, latencyMs: number): void {
    const start = bucketOf(at, this.step);
    let entry = this.byStart.get(start);
    if (!entry) this.byStart.set(start, (entry = [start, 0, 0, 0, 0]));
    entry[1] += answered;
    entry[2]++;
    entry[3] += latencyMs;
    entry[4] = Math.max(entry[4], latencyMs);
    if (this.byStart.size > MAX_BUCKETS && this.step < BUCKET_STEPS_MS.at(-1)!) {
      this.step = BUCKET_STEPS_MS[BUCKET_STEPS_MS.indexOf(this.step) + 1]!;
      this.byStart = new Map(rebucket(this.byStart.values(), this.step).map((b) => [b[0], b]));
    }
  }

  empty(): boolean {
    return this.byStart.size === 0;
  }

  sorted(): BucketTuple[] {
    return [...this.byStart.values()].sort((a, b) => a[0] - b[0]);
  }
}

/** Listens to a run's events; `command` is the command line already masked. */
export function recordTimeline(
  events: SendEmitter,
  settings: Pick<Settings, 'batchSize' | 'concurrency' | 'rate' | 'sendWindow'>,
  command: string,
  now: () => number = Date.now,
): TimelineRecorder {
  const startedAt = now();
  let sendingFrom: number | undefined;
  events.on('started', ({ at }) => (sendingFrom ??= at));
  const buckets = new Buckets();
  const pauses: PauseTuple[] = [];
  const sent: SentTuple[] = [];
  let outageFrom: number | undefined;
  const pause = (kind: PauseKind, from: number, to: number, reason?: string) => {
    if (to > from) pauses.push(reason === undefined ? [kind, from, to] : [kind, from, to, reason]);
  };
  events.on('batch', (batch) =>
    buckets.add(now(), batch.verdict === 'results' ? batch.size : 0, batch.latencyMs),
  );
  events.on('record', (row, earlier) => {
    if (earlier || row.attempts === 0) return;
    const at = now();
    const last = sent.at(-1);
    if (last && last[2] === at && last[1] + 1 === row.row) last[1] = row.row;
    // Rows far apart (a resume re-sending scattered failures) take an entry each: past the cap
    // the rest go without a time, so the file stays small whatever the run.
    else if (sent.length < MAX_SENT_ENTRIES) sent.push([row.row, row.row, at]);
  });
  events.on('retry', (notice) => pause('retry wait', now(), now() + notice.delayMs, notice.reason));
  events.on('waiting', (wait) => pause('window', wait.now, wait.opensAt));
  let outageReason: string | undefined;
  events.on('outage', ({ reason }) => {
    outageFrom = now();
    outageReason = reason;
  });
  events.on('recovered', () => {
    if (outageFrom !== undefined) pause('outage', outageFrom, now(), outageReason);
    outageFrom = undefined;
  });
  const window = settings.sendWindow;
  const run = (target: string): TimelineRun | undefined => {
    if (buckets.empty()) return undefined;
    const finishedAt = now();
    // An outage the run ended in lasted until its end.
    const open: PauseTuple[] =
      outageFrom !== undefined && finishedAt > outageFrom
        ? [['outage', outageFrom, finishedAt, outageReason ?? '']]
        : [];
    return {
      startedAt,
      sendingFrom: sendingFrom ?? startedAt,
      finishedAt,
      command,
      target,
      settings: {
        batchSize: settings.batchSize,
        concurrency: settings.concurrency,
        ...(settings.rate === undefined ? {} : { rate: settings.rate }),
        ...(window ? { window: describeWindow(window) } : {}),
      },
      step: buckets.step,
      buckets: buckets.sorted(),
      pauses: [...pauses, ...open],
      sent: [...sent].sort((a, b) => a[0] - b[0]),
    };
  };
  return { run };
}
