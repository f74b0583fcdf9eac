// Time from sending to delivery: each delivered row's deliveredAt less the time its answer came
// (from the campaign's timeline), at the resolution deliveredAt has, as percentiles and a
// histogram of fixed, readable buckets labelled at that resolution.
import type { SentTuple, Timeline } from './timeline.js';

/** Upper edges of the histogram's buckets, in seconds; the last bucket is everything longer. */
const EDGES_S = [1, 2, 5, 10, 30, 60, 300, 900, 3600, 6 * 3600, 24 * 3600];

/** One bar of the histogram: its label at the figures' resolution, and how many fall in it. */
export interface DeliveryBucket {
  label: string;
  count: number;
}

export interface DeliveryTimes {
  /** Delivered rows whose sending time is known. */
  measured: number;
  /** Delivered rows without one (no timeline, or a deliveredAt that is no time). */
  unmeasured: number;
  /**
   * What the figures are good to (ms): 1000 when a deliveredAt holds whole seconds, so a time to
   * delivery is known to the second and no finer; 1 when every one holds milliseconds.
   */
  resolution: number;
  /** Milliseconds, whole multiples of the resolution; undefined when nothing was measured. */
  p50?: number;
  p90?: number;
  p99?: number;
  /** From the shortest bucket to the last that holds any. */
  histogram: DeliveryBucket[];
}

const SECOND = 1000;

/** A time in whole seconds, minutes or hours: `30 s`, `5 min`, `6 h`, `1 day`. */
function span(s: number): string {
  if (s >= 86_400) return `${s / 86_400} day`;
  if (s >= 3600) return `${s / 3600} h`;
  if (s >= 60) return `${s / 60} min`;
  return `${s} s`;
}

/**
 * The label of bucket i: from the edge below to the next. To the second, the short buckets name
 * the whole seconds they hold (`2–4 s`), since no time between them can be told apart.
 */
export function bucketLabel(i: number, resolution: number): string {
  const low = i === 0 ? 0 : EDGES_S[i - 1]!;
  const high = EDGES_S[i];
  if (high === undefined) return `≥ ${span(low)}`;
  // A time rounded to 0 s was under a second: the second it was delivered in began before it was sent.
  if (i === 0) return `< ${span(high)}`;
  if (resolution >= SECOND && high <= 60) {
    return high - low === 1 ? `${low} s` : `${low}–${high - 1} s`;
  }
  const [lowText, highText] = [span(low), span(high)];
  const unit = (t: string) => t.replace(/^[\d.]+ /, '');
  return unit(lowText) === unit(highText)
    ? `${lowText.split(' ')[0]}–${highText}`
    : `${lowText}–${highText}`;
}

/** Whether a deliveredAt cell tells milliseconds (`…:41.250Z`), or only whole seconds. */
export function hasMilliseconds(deliveredAt: string): boolean {
  return /\d:\d\d[.,]\d/.test(deliveredAt);
}

/** The value at or below which p percent of the sorted values lie (nearest rank). */
export function percentile(sorted: ArrayLike<number>, p: number): number | undefined {
  if (sorted.length === 0) return undefined;
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1];
}

/** The answer time of a row: the newest run's entry whose range holds it. */
function sentLookup(timeline: Timeline | undefined): (row: number) => number | undefined {
  const ranges: SentTuple[] = (timeline?.runs ?? []).flatMap((run) => run.sent);
  ranges.sort((a, b) => a[0] - b[0] || a[2] - b[2]);
  return (row) => {
    let lo = 0;
    let hi = ranges.length - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (ranges[mid]![0] <= row) {
        found = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    // Ranges of different runs may overlap (a resumed run re-sends what failed): look back a little.
    for (let i = found; i >= 0 && i > found - 64; i--) {
      const range = ranges[i]!;
      if (range[0] <= row && row <= range[1]) return range[2];
    }
    return undefined;
  };
}

/**
 * A row's time to delivery at a resolution: to the second, its deliveredAt stands for the whole
 * second it names, so the time is measured from that second's middle and rounded to the second.
 * The true time is then within a second of it, and 0 means under a second.
 */
export function timeToDelivery(sentAt: number, deliveredAt: number, resolution: number): number {
  if (resolution < SECOND) return Math.max(0, deliveredAt - sentAt);
  return Math.max(0, Math.round((deliveredAt + SECOND / 2 - sentAt) / SECOND) * SECOND);
}

/** `delivered` holds pairs: row, deliveredAt (ms); `resolution` is theirs (1 or 1000). */
export function deliveryTimes(
  delivered: readonly number[],
  timeline: Timeline | undefined,
  resolution: number,
): DeliveryTimes {
  const sentAt = sentLookup(timeline);
  const times: number[] = [];
  const pairs = delivered.length / 2;
  for (let i = 0; i < delivered.length; i += 2) {
    const at = sentAt(delivered[i]!);
    if (at !== undefined) times.push(timeToDelivery(at, delivered[i + 1]!, resolution));
  }
  const sorted = Float64Array.from(times).sort();
  const result: DeliveryTimes = {
    measured: sorted.length,
    unmeasured: pairs - sorted.length,
    resolution,
    histogram: histogramOf(sorted, resolution),
  };
  if (sorted.length > 0) {
    result.p50 = percentile(sorted, 50);
    result.p90 = percentile(sorted, 90);
    result.p99 = percentile(sorted, 99);
  }
  return result;
}

/** The buckets always shown, up to `30 s–1 min`: one lone bar would fill the chart and say nothing. */
const SHOWN_BUCKETS = 6;

/** Counts per bucket, up to the last bucket that holds any (and at least SHOWN_BUCKETS). */
function histogramOf(sorted: Float64Array, resolution: number): DeliveryBucket[] {
  const counts = new Array<number>(EDGES_S.length + 1).fill(0);
  for (const ms of sorted) {
    const bucket = EDGES_S.findIndex((edge) => ms < edge * SECOND);
    counts[bucket === -1 ? EDGES_S.length : bucket]!++;
  }
  const last = Math.max(
    SHOWN_BUCKETS - 1,
    counts.findLastIndex((count) => count > 0),
  );
  return counts
    .slice(0, last + 1)
    .map((count, i) => ({ label: bucketLabel(i, resolution), count }));
}
