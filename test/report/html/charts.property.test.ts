// The time charts and the delivery-time histogram checked on the drawing itself, over generated
// campaigns from a second to days long, with windows, retry waits and outages: every mark inside
// its plot, ticks distinct and increasing, and each bar and dot the value its table row holds.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { recordTimeline } from '../../../src/report/html/recorder.js';
import { deliveryTimes } from '../../../src/report/html/delivery-times.js';
import { sendingSection } from '../../../src/report/html/sending.js';
import { time } from '../../../src/report/html/page.js';
import { MAX_BUCKETS_SHOWN } from '../../../src/report/html/scale.js';
import { NARROW_SERIES_PLOT, SERIES_PLOT } from '../../../src/report/html/svg.js';
import type { Timeline, TimelineRun } from '../../../src/report/html/timeline.js';
import { SendEmitter } from '../../../src/send/events.js';
import { attributes, chartOf, elements, pathPoints } from '../../helpers/svg.js';

const SECOND = 1000;
const DAY = 86_400 * SECOND;

/** A share of a run's length: where in it something happens. */
const share = fc.double({ min: 0, max: 1, noNaN: true });

const runShape = fc.record({
  gap: fc.integer({ min: 0, max: 3 * DAY }),
  length: fc.oneof(
    fc.integer({ min: 1, max: 60 * SECOND }),
    fc.integer({ min: 60 * SECOND, max: 3600 * SECOND }),
    fc.integer({ min: 3600 * SECOND, max: 5 * DAY }),
  ),
  batches: fc.array(
    fc.record({
      at: share,
      size: fc.integer({ min: 1, max: 500 }),
      latency: fc.double({ min: 0.2, max: 30_000, noNaN: true }),
      verdict: fc.constantFrom('results', 'results', 'results', 'failed', 'unknown' as const),
    }),
    { minLength: 1, maxLength: 150 },
  ),
  windows: fc.array(fc.record({ at: share, length: share }), { maxLength: 3 }),
  retries: fc.array(fc.record({ at: share, delay: fc.integer({ min: 1, max: 120_000 }) }), {
    maxLength: 5,
  }),
  outage: fc.option(fc.record({ at: share, length: share }), { nil: undefined }),
});

const campaignShape = fc.record({
  start: fc.integer({ min: Date.UTC(2026, 0, 1), max: Date.UTC(2026, 11, 1) }),
  runs: fc.array(runShape, { minLength: 1, maxLength: 3 }),
});

type Shape = typeof runShape extends fc.Arbitrary<infer T> ? T : never;

/** A run's events replayed in time order through the recorder sms-send uses. */
function recordRun(startedAt: number, shape: Shape): TimelineRun {
  let now = startedAt;
  const events = new SendEmitter();
  const recorder = recordTimeline(events, { batchSize: 100, concurrency: 2 }, 'c', () => now);
  const at = (s: number) => startedAt + Math.floor(s * shape.length);
  const steps: Array<[number, () => void]> = [
    ...shape.batches.map((b, i): [number, () => void] => [
      at(b.at),
      () =>
        events.emit('batch', {
          batch: i + 1,
          size: b.size,
          attempts: 1,
          latencyMs: b.latency,
          status: '200',
          verdict: b.verdict,
        }),
    ]),
    ...shape.windows.map((w): [number, () => void] => [
      at(w.at),
      () =>
        events.emit('waiting', {
          now,
          opensAt: now + Math.floor(w.length * (startedAt + shape.length - now)),
          timeZone: 'UTC',
        }),
    ]),
    ...shape.retries.map((r, i): [number, () => void] => [
      at(r.at),
      () => events.emit('retry', { batch: i, attempt: 1, delayMs: r.delay, reason: 'HTTP 503' }),
    ]),
  ];
  if (shape.outage) {
    const { at: from, length } = shape.outage;
    steps.push([at(from), () => events.emit('outage', { reason: 'down', graceMs: 1 })]);
    steps.push([
      at(Math.min(1, from + length * (1 - from))),
      () => events.emit('recovered', { afterMs: 1 }),
    ]);
  }
  steps.sort((a, b) => a[0] - b[0]);
  for (const [when, step] of steps) {
    now = when;
    step();
  }
  now = startedAt + shape.length;
  return recorder.run('simulator')!;
}

function timelineOf(campaign: { start: number; runs: Shape[] }): Timeline {
  const runs: TimelineRun[] = [];
  let start = campaign.start;
  for (const shape of campaign.runs) {
    start += shape.gap;
    runs.push(recordRun(start, shape));
    start += shape.length;
  }
  return { v: 3, runs };
}

/** Three runs whose time axis ran from 00:00 to 00:00 the next day. */
const midnightToMidnight = {
  start: 1_767_463_278_187,
  runs: [
    [195_660_044, 2_506_697],
    [2_932_947, 56_393],
    [72_583_125, 3_382_608],
  ].map(([gap, length]) => ({
    gap: gap!,
    length: length!,
    batches: [{ at: 0, size: 1, latency: 0.2, verdict: 'results' as const }],
    windows: [],
    retries: [],
    outage: undefined,
  })),
};

type Plot = typeof SERIES_PLOT;
/** Each time chart is drawn twice: at the page's width, and at a phone's (its ids end `-narrow`). */
const SIZES: ReadonlyArray<[string, Plot]> = [
  ['', SERIES_PLOT],
  ['-narrow', NARROW_SERIES_PLOT],
];
const { top, bottom } = SERIES_PLOT;
/** Coordinates are written to a tenth: a mark on the edge may be a twentieth past it. */
const SLACK = 0.051;
const within = ({ left, right }: Plot, x: number, y: number) =>
  x >= left - SLACK && x <= right + SLACK && y >= top - SLACK && y <= bottom + SLACK;

describe('the time charts, drawn from generated campaigns', () => {
  it('keep every mark in the plot, ticks distinct and increasing, values those of the table', () => {
    fc.assert(
      fc.property(campaignShape, (campaign) => {
        const timeline = timelineOf(campaign);
        const page = sendingSection(timeline, time).html;
        const figures = new Map(
          elements(page, 'tr').flatMap((row) => {
            const at = attributes(row)['data-at'];
            if (at === undefined) return [];
            const answered = /data-answered><span data-n="(\d+)"/.exec(row)![1]!;
            const latency = /data-latency>(?:<span data-n="(\d+)")?/.exec(row)![1];
            return [[Number(at), { answered: Number(answered), latency }]];
          }),
        );
        const total = timeline.runs.flatMap((r) => r.buckets).reduce((sum, b) => sum + b[1], 0);
        expect(figures.size).toBeGreaterThan(0);
        expect(figures.size).toBeLessThanOrEqual(MAX_BUCKETS_SHOWN);

        for (const [suffix, plot] of SIZES) {
          const inside = (x: number, y: number) => within(plot, x, y);
          const rate = chartOf(page, `rate-chart${suffix}`);
          checkAxes(rate, plot);
          const bars = elements(rate, 'rect', 'bar').map(attributes);
          expect(bars).toHaveLength(figures.size);
          const yTop = Math.max(...valueTicks(rate));
          for (const bar of bars) {
            const [x, y, w, h] = ['x', 'y', 'width', 'height'].map((k) => Number(bar[k]));
            expect(inside(x!, y!) && inside(x! + w!, y! + h!), JSON.stringify(bar)).toBe(true);
            const value = Number(bar['data-v']);
            expect(value).toBe(figures.get(Number(bar['data-at']))!.answered);
            expect(Math.abs(h! - ((bottom - top) * value) / yTop)).toBeLessThan(0.11);
          }
          expect(bars.reduce((sum, b) => sum + Number(b['data-v']), 0)).toBe(total);

          const latency = chartOf(page, `latency-chart${suffix}`);
          checkAxes(latency, plot);
          const dots = elements(latency, 'circle', 'dot').map(attributes);
          const measured = [...figures.values()].filter((f) => f.latency !== undefined);
          expect(dots).toHaveLength(measured.length);
          for (const dot of dots) {
            expect(inside(Number(dot['cx']), Number(dot['cy']))).toBe(true);
            expect(dot['data-v']).toBe(figures.get(Number(dot['data-at']))!.latency);
          }
          for (const [x, y] of pathPoints(latency)) expect(inside(x, y)).toBe(true);

          for (const chart of [rate, latency]) {
            for (const mark of [
              ...elements(chart, 'rect', 'tick'),
              ...elements(chart, 'g', 'pause').flatMap((g) => elements(g, 'rect')),
            ].map(attributes)) {
              const x = Number(mark['x']);
              expect(inside(x, top) && inside(x + Number(mark['width']), top)).toBe(true);
            }
          }
        }
      }),
      {
        numRuns: 150,
        // Found by this property: an axis from one midnight to the next labelled both "00:00".
        examples: [[midnightToMidnight]],
      },
    );
  });
});

/** The y axis's tick values, bottom to top. */
function valueTicks(chart: string): number[] {
  return [...chart.matchAll(/text-anchor="end"><tspan data-n="(\d+)"/g)].map((m) => Number(m[1]));
}

/** Ticks on both axes: inside the plot, distinct, increasing; time labels distinct. */
function checkAxes(chart: string, plot: Plot): void {
  const inside = (x: number, y: number) => within(plot, x, y);
  const values = valueTicks(chart);
  expect(values[0]).toBe(0);
  for (let i = 1; i < values.length; i++) expect(values[i]).toBeGreaterThan(values[i - 1]!);
  const tickMark = new RegExp(
    `<line class="axis" x1="([\\d.]+)" y1="${bottom}" x2="[\\d.]+" y2="${bottom + 4}"/><text class="label" x="[\\d.]+" y="${bottom + 16}" text-anchor="\\w+">([^<]+)<`,
    'g',
  );
  const ticks = [...chart.matchAll(tickMark)];
  expect(ticks.length).toBeGreaterThanOrEqual(1);
  const xs = ticks.map((t) => Number(t[1]));
  for (const x of xs) expect(inside(x, bottom)).toBe(true);
  for (let i = 1; i < xs.length; i++) expect(xs[i]).toBeGreaterThan(xs[i - 1]!);
  const labels = ticks.map((t) => t[2]);
  expect(new Set(labels).size).toBe(labels.length);
}

describe('the delivery-time histogram, from generated deliveries', () => {
  it('counts every measured delivery once, in buckets labelled at the figures’ resolution', () => {
    const delivery = fc.record({
      sent: fc.integer({ min: 0, max: 10 * DAY }),
      after: fc.integer({ min: 0, max: 2 * DAY }),
    });
    fc.assert(
      fc.property(
        fc.array(delivery, { minLength: 1, maxLength: 200 }),
        fc.boolean(),
        (list, coarse) => {
          const resolution = coarse ? SECOND : 1;
          const pairs = list.flatMap((d, i) => {
            const at = d.sent + d.after;
            return [i + 1, coarse ? Math.floor(at / SECOND) * SECOND : at];
          });
          const timeline: Timeline = {
            v: 3,
            runs: [
              {
                startedAt: 0,
                sendingFrom: 0,
                finishedAt: 1,
                command: '',
                target: '',
                settings: { batchSize: 1, concurrency: 1 },
                step: SECOND,
                buckets: [],
                pauses: [],
                sent: list.map((d, i): [number, number, number] => [i + 1, i + 1, d.sent]),
              },
            ],
          };
          const times = deliveryTimes(pairs, timeline, resolution);
          expect(times.measured).toBe(list.length);
          expect(times.histogram.reduce((sum, b) => sum + b.count, 0)).toBe(list.length);
          // The first six buckets always, then up to the last that holds any.
          expect(times.histogram.length).toBeGreaterThanOrEqual(6);
          if (times.histogram.length > 6) expect(times.histogram.at(-1)!.count).toBeGreaterThan(0);
          const labels = times.histogram.map((b) => b.label);
          expect(new Set(labels).size).toBe(labels.length);
          for (const p of [times.p50!, times.p90!, times.p99!]) expect(p % resolution).toBe(0);
          expect(labels.slice(0, 3)).toEqual(
            coarse ? ['< 1 s', '1 s', '2–4 s'] : ['< 1 s', '1–2 s', '2–5 s'],
          );
        },
      ),
      { numRuns: 150 },
    );
  });
});
