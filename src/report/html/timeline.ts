// How the sending went over time, kept in the campaign's state folder for the HTML page: the report
// rows hold outcomes, not times (docs/report.md#the-html-page says what is recorded and why).
import type { RunRecord } from '../../journal/store.js';

/** What shaped one run's sending, as the page shows it. */
export interface RunSettings {
  batchSize: number;
  concurrency: number;
  /** Messages per second; absent when unlimited. */
  rate?: number;
  /** `09:00-21:00 mon-fri Europe/Oslo`; absent when there is no send window. */
  window?: string;
}

/**
 * One stretch of sending, `step` long: [its start (ms), messages answered, batches, latency sum
 * (ms), latency max (ms)].
 */
export type BucketTuple = [
  at: number,
  messages: number,
  batches: number,
  latencySum: number,
  latencyMax: number,
];

/**
 * The lengths a bucket may have, each a multiple of the one before and a divisor of a day, so
 * buckets of any of them start on the same UTC boundaries and merge into the next without loss.
 */
export const BUCKET_STEPS_MS = [
  0.1,
  0.5,
  1,
  5,
  15,
  60,
  300,
  900,
  3600,
  3 * 3600,
  6 * 3600,
  24 * 3600,
  7 * 24 * 3600,
].map((s) => Math.round(s * 1000));

/** The bucket of `at` for buckets `step` long. */
export function bucketOf(at: number, step: number): number {
  return Math.floor(at / step) * step;
}

/** Buckets merged into buckets `step` long (a multiple of theirs), in time order. */
export function rebucket(buckets: Iterable<BucketTuple>, step: number): BucketTuple[] {
  const merged = new Map<number, BucketTuple>();
  for (const b of buckets) {
    const at = bucketOf(b[0], step);
    const entry = merged.get(at);
    if (!entry) merged.set(at, [at, b[1], b[2], b[3], b[4]]);
    else {
      entry[1] += b[1];
      entry[2] += b[2];
      entry[3] += b[3];
      entry[4] = Math.max(entry[4], b[4]);
    }
  }
  return [...merged.values()].sort((a, b) => a[0] - b[0]);
}

/** Why sending paused: a send window, a batch waiting to be sent again (429, 503 with Retry-After, a refused connection), an outage. */
export type PauseKind = 'window' | 'retry wait' | 'outage';

/** [kind, from (ms), to (ms), why: "HTTP 503", "connection refused" (retry waits, outages)] */
export type PauseTuple = [kind: PauseKind, from: number, to: number, reason?: string];

/**
 * Rows answered together: [first row, last row, when (ms)]. Each batch's rows arrive together, so
 * a million-record campaign needs about one entry per batch, not one per row.
 */
export type SentTuple = [from: number, to: number, at: number];

export interface TimelineRun {
  startedAt: number;
  /** When sending began, after the wait for a send window: the run's time counts from here. */
  sendingFrom: number;
  finishedAt: number;
  /** The command as it was run, with credentials masked. */
  command: string;
  /** "simulator" or the endpoint. */
  target: string;
  settings: RunSettings;
  /** The length of its buckets (ms): one of BUCKET_STEPS_MS, the shortest that kept them few. */
  step: number;
  buckets: BucketTuple[];
  pauses: PauseTuple[];
  sent: SentTuple[];
  /** The host it ran on, as its store kept it. */
  host?: string;
}

export interface Timeline {
  v: 3;
  runs: TimelineRun[];
}

/**
 * The campaign's timeline from the runs its store kept: each run's record as drawn, named with its
 * host. A record of another shape (written by another sms-send) is left out: only the page's time
 * charts depend on it, and the report is the record.
 */
export function timelineOf(records: readonly RunRecord[]): Timeline | undefined {
  const runs = records
    .filter(({ data }) => isRun(data))
    .map(({ host, data }) => ({ ...(data as TimelineRun), host }));
  return runs.length === 0 ? undefined : { v: 3, runs };
}

function isRun(data: object): boolean {
  const run = data as Partial<TimelineRun>;
  return typeof run.startedAt === 'number' && Array.isArray(run.buckets);
}
