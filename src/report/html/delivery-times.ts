// Time from sending to delivery: each delivered row's deliveredAt less the time its answer came
// (from the campaign's timeline), as percentiles and a histogram of fixed, readable buckets.
import type { SentTuple, Timeline } from './timeline.js';

/** Upper edges of the histogram's buckets, in seconds; the last bucket is everything longer. */
export const DELIVERY_BUCKETS_S = [1, 5, 10, 30, 60, 300, 900, 3600, 6 * 3600, 24 * 3600];

export interface DeliveryTimes {
  /** Delivered rows whose sending time is known. */
  measured: number;
  /** Delivered rows without one (no timeline, or a deliveredAt that is no time). */
  unmeasured: number;
  /** Milliseconds; undefined when nothing was measured. */
  p50?: number;
  p90?: number;
  p99?: number;
  /** One count per bucket of DELIVERY_BUCKETS_S, and one more for longer. */
  histogram: number[];
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

/** `delivered` holds pairs: row, deliveredAt (ms). */
export function deliveryTimes(delivered: readonly number[], timeline?: Timeline): DeliveryTimes {
  const sentAt = sentLookup(timeline);
  const times: number[] = [];
  const pairs = delivered.length / 2;
  for (let i = 0; i < delivered.length; i += 2) {
    const at = sentAt(delivered[i]!);
    if (at !== undefined) times.push(Math.max(0, delivered[i + 1]! - at));
  }
  const sorted = Float64Array.from(times).sort();
  const histogram = new Array<number>(DELIVERY_BUCKETS_S.length + 1).fill(0);
  for (const ms of sorted) {
    const bucket = DELIVERY_BUCKETS_S.findIndex((edge) => ms < edge * 1000);
    histogram[bucket === -1 ? DELIVERY_BUCKETS_S.length : bucket]!++;
  }
  const result: DeliveryTimes = {
    measured: sorted.length,
    unmeasured: pairs - sorted.length,
    histogram,
  };
  if (sorted.length > 0) {
    result.p50 = percentile(sorted, 50);
    result.p90 = percentile(sorted, 90);
    result.p99 = percentile(sorted, 99);
  }
  return result;
}
