// The axes of the page's time charts: a bucket length fitted to the campaign's length, time ticks
// whose labels are distinct at their resolution, and round value ticks from zero.
import { BUCKET_STEPS_MS, bucketOf } from './timeline.js';

/** At most this many buckets across a chart: bars stay wide enough to see and to point at. */
export const MAX_BUCKETS_SHOWN = 60;

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** Distances between time ticks; each divides the next larger bucket boundaries it can meet. */
const TICK_STEPS_MS = [
  100,
  200,
  500,
  SECOND,
  2 * SECOND,
  5 * SECOND,
  10 * SECOND,
  15 * SECOND,
  30 * SECOND,
  MINUTE,
  2 * MINUTE,
  5 * MINUTE,
  10 * MINUTE,
  15 * MINUTE,
  30 * MINUTE,
  HOUR,
  2 * HOUR,
  3 * HOUR,
  6 * HOUR,
  12 * HOUR,
  DAY,
  2 * DAY,
  7 * DAY,
  28 * DAY,
];

/**
 * The shortest bucket, no shorter than the longest one recorded (`recorded`), that shows the
 * time from `from` to `to` in at most MAX_BUCKETS_SHOWN buckets (or the longest there is).
 */
export function chooseStep(from: number, to: number, recorded: number): number {
  const steps = BUCKET_STEPS_MS.filter((s) => s >= recorded);
  for (const step of steps) if (bucketCount(from, to, step) <= MAX_BUCKETS_SHOWN) return step;
  return steps.at(-1) ?? BUCKET_STEPS_MS.at(-1)!;
}

function bucketCount(from: number, to: number, step: number): number {
  return Math.max(1, Math.ceil(to / step) - Math.floor(from / step));
}

export interface TimeTick {
  at: number;
  label: string;
}

export interface TimeAxis {
  /** The first bucket's start and the last one's end: bars fill their buckets inside the plot. */
  from: number;
  to: number;
  /** The length of a bucket (ms). */
  step: number;
  ticks: TimeTick[];
  /** What the labels leave out: `UTC, 27 Nov 2026`. */
  caption: string;
  /** A bucket as a person names it: `15:13:05` or `27 Nov 15:00`, at the bucket's resolution. */
  label: (at: number) => string;
}

const MONTHS = 'Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec'.split(' ');

function day(at: number): string {
  const d = new Date(at);
  return `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]}`;
}

/** `15:13`, `15:13:05` or `15:13:05.3`: as fine as the resolution, no finer. */
function clock(at: number, resolution: number): string {
  const end = resolution < SECOND ? 21 : resolution < MINUTE ? 19 : 16;
  return new Date(at).toISOString().slice(11, end);
}

/** Labels at a resolution: tenths, seconds, minutes, or days; with the date when the axis crosses days. */
function labeller(resolution: number, manyDays: boolean): (at: number) => string {
  if (resolution >= DAY) return day;
  return manyDays ? (at) => `${day(at)} ${clock(at, resolution)}` : (at) => clock(at, resolution);
}

/**
 * The time axis for buckets `step` long over [from, to], with as many ticks as fit `width`
 * pixels (about 7 per character of a label, and room between).
 */
export function timeAxis(from: number, to: number, step: number, width: number): TimeAxis {
  const start = bucketOf(from, step);
  const end = Math.max(start + step, Math.ceil(to / step) * step);
  // The last tick may stand on `end` itself: an axis that ends at midnight spans two days.
  const manyDays = bucketOf(start, DAY) !== bucketOf(end, DAY);
  const tick = pickTickStep(start, end, step, width, manyDays);
  const tickLabel = labeller(tick, manyDays);
  const ticks: TimeTick[] = [];
  for (let at = Math.ceil(start / tick) * tick; at <= end; at += tick) {
    ticks.push({ at, label: tickLabel(at) });
  }
  const year = new Date(start).getUTCFullYear();
  const caption = manyDays
    ? `UTC, ${day(start)} to ${day(end - 1)} ${year}`
    : `UTC, ${day(start)} ${year}`;
  return { from: start, to: end, step, ticks, caption, label: labeller(step, manyDays) };
}

/** The shortest tick distance, a multiple of the bucket, whose labels fit side by side. */
function pickTickStep(
  start: number,
  end: number,
  step: number,
  width: number,
  manyDays: boolean,
): number {
  const candidates = TICK_STEPS_MS.filter((t) => t >= step && t % step === 0);
  for (const tick of candidates) {
    const chars = labeller(tick, manyDays)(start).length;
    const fit = Math.max(2, Math.floor(width / (chars * 7 + 24)));
    if ((end - start) / tick <= fit) return tick;
  }
  return candidates.at(-1) ?? step;
}

export interface ValueAxis {
  /** The top of the axis: the largest tick. */
  top: number;
  /** From 0 up to `top`, evenly spaced, round. */
  ticks: number[];
}

/** Round ticks from 0 that reach `max`: about `count` steps of 1, 2 or 5 times a power of ten. */
export function valueAxis(max: number, count = 4): ValueAxis {
  let tick = 1;
  // Whole units only: the charts count messages and milliseconds.
  for (let power = 1; tick * count < max; power *= 10) {
    tick = [1, 2, 5].map((m) => m * power).find((t) => t * count >= max) ?? 10 * power;
  }
  const top = Math.max(tick, Math.ceil(max / tick) * tick);
  const ticks: number[] = [];
  for (let v = 0; v <= top; v += tick) ticks.push(v);
  return { top, ticks };
}
