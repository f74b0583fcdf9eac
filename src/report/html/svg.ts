// The page's charts as inline SVG strings: a stacked bar, horizontal bars, a histogram and a time
// series. Colours come from the page's CSS classes (light and dark), each chart carries its title
// and a text description, and every bar its value as text, so no chart speaks in colour alone.
import type { Markup } from './escape.js';
import { plain as m } from './escape.js';
import { neutral, num } from './numbers.js';
import { plural } from '../../shared/count.js';
import { valueAxis, type TimeAxis } from './scale.js';

export interface Bar {
  /** CSS class suffix: `c-accepted`. */
  key: string;
  label: string;
  count: number;
}

/**
 * The sizes each chart is drawn at: the page's, and a phone's, shown where the screen is narrower
 * than 42rem (the page's CSS), whose text the wide one would shrink below legibility.
 */
export type ChartSize = 'wide' | 'narrow';

/** Each size's width in the SVG's units, which the page's CSS draws at about one unit a pixel. */
const WIDTH: Record<ChartSize, number> = { wide: 600, narrow: 360 };

/** The chart at both sizes; the page's CSS shows the one that fits the screen. */
export function bothSizes(draw: (size: ChartSize) => Markup): Markup {
  return m`${draw('wide')}${draw('narrow')}`;
}

/** A coordinate to a tenth: stable text for the pinned tests, small files. */
function tenth(n: number): number {
  return Math.round(n * 10) / 10;
}

/** Coordinates with at most one decimal, as text. */
function r(n: number): string {
  return String(tenth(n));
}

function frame(
  [id, size]: [string, ChartSize],
  title: string,
  desc: string,
  height: number,
  body: Markup[],
): Markup {
  // The narrow copy's ids are its own: an id names one element of the page.
  if (size === 'narrow') id = `${id}-narrow`;
  const width = WIDTH[size];
  const kind = size === 'narrow' ? 'chart narrow' : 'chart';
  return m`<svg class="${kind}" role="img" aria-labelledby="${id}-t ${id}-d" viewBox="0 0 ${width} ${height}" preserveAspectRatio="xMinYMin meet" xmlns="http://www.w3.org/2000/svg"><title id="${id}-t">${title}</title><desc id="${id}-d">${desc}</desc>${body}</svg>`;
}

function describe(bars: readonly Bar[]): string {
  return bars.map((b) => `${b.label}: ${neutral(b.count)}`).join('; ');
}

/** One bar split by share, each part labelled with its share where it has room. */
export function stackedBar(
  id: string,
  title: string,
  bars: readonly Bar[],
  size: ChartSize = 'wide',
): Markup {
  const width = WIDTH[size];
  const total = bars.reduce((sum, b) => sum + b.count, 0);
  const parts: Markup[] = [];
  let x = 0;
  for (const bar of bars) {
    if (bar.count === 0 || total === 0) continue;
    const w = (bar.count / total) * width;
    const share = Math.round((bar.count / total) * 1000) / 10;
    const label =
      w >= 44
        ? m`<text x="${r(x + w / 2)}" y="20" text-anchor="middle">${num(share, 1, 'tspan')}%</text>`
        : undefined;
    parts.push(
      m`<g class="c-${bar.key}"><rect x="${r(x)}" y="0" width="${r(w)}" height="30"><title>${bar.label}: ${neutral(bar.count)}</title></rect>${label}</g>`,
    );
    x += w;
  }
  if (parts.length === 0)
    parts.push(m`<rect class="empty" x="0" y="0" width="${width}" height="30"/>`);
  return frame([id, size], title, describe(bars), 30, parts);
}

/** One labelled bar per row, longest first as given: the delivery funnel, groups by code. */
export function horizontalBars(
  id: string,
  title: string,
  bars: readonly Bar[],
  size: ChartSize = 'wide',
): Markup {
  const width = WIDTH[size];
  const labelWidth = size === 'narrow' ? 100 : 170;
  const row = 24;
  const max = Math.max(1, ...bars.map((b) => b.count));
  const body = bars.map((bar, i) => {
    const y = i * row;
    const w = ((width - labelWidth - 70) * bar.count) / max;
    return m`<g class="c-${bar.key}"><text class="label" x="0" y="${y + 16}">${bar.label}</text><rect x="${labelWidth}" y="${y + 3}" width="${r(w)}" height="${row - 6}"/><text class="value" x="${r(labelWidth + w + 6)}" y="${y + 16}">${num(bar.count, 0, 'tspan')}</text></g>`;
  });
  return frame([id, size], title, describe(bars), Math.max(row, bars.length * row), body);
}

/** Vertical bars with their labels below and counts above: the delivery-time histogram. */
export function histogram(
  id: string,
  title: string,
  bars: readonly Bar[],
  size: ChartSize = 'wide',
): Markup {
  // A phone's width has no room for a label under each bar: one row per bucket instead.
  if (size === 'narrow') return horizontalBars(id, title, bars, size);
  const width = WIDTH[size];
  const height = 160;
  const plot = height - 36;
  const slot = width / Math.max(1, bars.length);
  const max = Math.max(1, ...bars.map((b) => b.count));
  const body = bars.map((bar, i) => {
    const h = (plot - 14) * (bar.count / max);
    const x = i * slot;
    return m`<g class="c-${bar.key}"><rect x="${r(x + 4)}" y="${r(plot - h)}" width="${r(slot - 8)}" height="${r(h)}"/><text class="value" x="${r(x + slot / 2)}" y="${r(plot - h - 3)}" text-anchor="middle">${num(bar.count, 0, 'tspan')}</text><text class="label" x="${r(x + slot / 2)}" y="${plot + 16}" text-anchor="middle">${bar.label}</text></g>`;
  });
  return frame([id, size], title, describe(bars), height, body);
}

export interface SeriesPoint {
  /** ms since the epoch: the start of its bucket. */
  at: number;
  value: number;
}

export interface Span {
  label: string;
  from: number;
  to: number;
  /** A short wait of some batches, not of the sending: a tick on the axis, not a shaded band. */
  minor?: boolean;
  /** Why the pauses merged into it were taken, and how often each. */
  reasons?: Map<string, number>;
}

export interface SeriesOptions {
  id: string;
  title: string;
  /** What a value counts, for the axis: "messages", "ms". */
  unit: string;
  axis: TimeAxis;
  /** A bar per bucket, or a line through the buckets' middles (broken where none was sent). */
  style: 'bars' | 'line';
  /** Shaded and labelled: pauses. */
  spans: readonly Span[];
  /** The page's size or a phone's; `axis` is made for its plot's width. */
  size?: ChartSize;
}

type Plot = typeof SERIES_PLOT;

/** Where a time chart draws: its marks stay inside [left, right] × [top, bottom]. */
export const SERIES_PLOT = { width: 600, height: 192, left: 56, right: 592, top: 22, bottom: 146 };

/** The same on a phone: as tall, narrower, with room left for the values' labels. */
export const NARROW_SERIES_PLOT: Plot = { ...SERIES_PLOT, width: 360, left: 52, right: 352 };

/** The plot a time chart of `size` draws in. */
export function seriesPlot(size: ChartSize = 'wide'): Plot {
  return size === 'narrow' ? NARROW_SERIES_PLOT : SERIES_PLOT;
}

/** Values over time with the pauses shaded; the x axis is time, the y axis starts at zero. */
export function series(points: readonly SeriesPoint[], o: SeriesOptions): Markup {
  const size = o.size ?? 'wide';
  const plot = seriesPlot(size);
  const { height, left, right, top, bottom } = plot;
  const { axis } = o;
  const x = (at: number) => left + ((right - left) * (at - axis.from)) / (axis.to - axis.from);
  const values = valueAxis(points.reduce((most, p) => Math.max(most, p.value), 0));
  const y = (v: number) => bottom - ((bottom - top) * v) / values.top;
  const major = o.spans.filter((s) => !s.minor);
  const minor = o.spans.filter((s) => s.minor);
  const body: Markup[] = [
    ...spanMarks(major, plot, axis, x),
    ...values.ticks.map(
      (v) =>
        m`<line class="grid" x1="${left}" y1="${r(y(v))}" x2="${right}" y2="${r(y(v))}"/><text class="label" x="${left - 4}" y="${r(y(v) + 4)}" text-anchor="end">${num(v, 0, 'tspan')}</text>`,
    ),
    m`<text class="label unit" x="${left}" y="${top - 8}">${o.unit}</text>`,
    ...(o.style === 'bars' ? barMarks(points, o, bottom, x, y) : lineMarks(points, o, x, y)),
    // Over the bars, so a wait is never hidden behind one.
    ...spanMarks(minor, plot, axis, x),
    m`<line class="axis" x1="${left}" y1="${bottom}" x2="${right}" y2="${bottom}"/>`,
    ...axis.ticks.map(
      (t) =>
        m`<line class="axis" x1="${r(x(t.at))}" y1="${bottom}" x2="${r(x(t.at))}" y2="${bottom + 4}"/><text class="label" x="${r(x(t.at))}" y="${bottom + 16}" text-anchor="${anchor(plot, x(t.at))}">${t.label}</text>`,
    ),
    m`<text class="label caption" x="${right}" y="${bottom + 34}" text-anchor="end">${axis.caption}</text>`,
  ];
  return frame([o.id, size], o.title, seriesDescription(points, o), height, body);
}

/** A tick label at either end of the axis is anchored inward, so it is never cut off. */
function anchor(plot: Plot, at: number): string {
  if (at - plot.left < 30) return 'start';
  if (plot.right - at < 30) return 'end';
  return 'middle';
}

type Scale = (v: number) => number;

/** Pauses clamped to the axis: shaded bands, and ticks under the axis for short waits. */
function spanMarks(spans: readonly Span[], plot: Plot, axis: TimeAxis, x: Scale): Markup[] {
  const { top, bottom, right } = plot;
  return spans.flatMap((s) => {
    const from = Math.max(axis.from, s.from);
    const to = Math.min(axis.to, s.to);
    if (to < from) return [];
    // Clamped at the right edge too: a band never runs past the plot, however short it is.
    const x0 = Math.min(x(from), right - 2);
    const w = r(Math.min(right - x0, Math.max(2, x(to) - x0)));
    return s.minor
      ? [
          m`<rect class="tick" x="${r(x0)}" y="${bottom - 4}" width="${w}" height="4"><title>${s.label}</title></rect>`,
        ]
      : [
          m`<g class="pause"><rect x="${r(x0)}" y="${top}" width="${w}" height="${bottom - top}"><title>${s.label}</title></rect></g>`,
        ];
  });
}

function barMarks(
  points: readonly SeriesPoint[],
  o: SeriesOptions,
  bottom: number,
  x: Scale,
  y: Scale,
): Markup[] {
  const { axis } = o;
  return points.map((p) => {
    // A gap between bars where there is room for one; the far edges from the rounded near ones,
    // so no rounding takes a bar past its plot.
    const gap = x(p.at + axis.step) - x(p.at) > 4 ? 0.5 : 0;
    const x0 = tenth(x(p.at) + gap);
    const x1 = tenth(x(p.at + axis.step) - gap);
    const y0 = tenth(y(p.value));
    return m`<rect class="bar" data-at="${p.at}" data-v="${p.value}" x="${x0}" y="${y0}" width="${r(x1 - x0)}" height="${r(bottom - y0)}"><title>${axis.label(p.at)}: ${neutral(p.value)} ${o.unit}</title></rect>`;
  });
}

function lineMarks(points: readonly SeriesPoint[], o: SeriesOptions, x: Scale, y: Scale): Markup[] {
  const { axis } = o;
  const middle = (p: SeriesPoint) => x(p.at + axis.step / 2);
  // Buckets without a batch break the line: nothing was measured there.
  const d = points
    .map((p, i) => {
      const joined = i > 0 && points[i - 1]!.at + axis.step === p.at;
      return `${joined ? 'L' : 'M'}${r(middle(p))} ${r(y(p.value))}`;
    })
    .join(' ');
  const dots = points.map(
    (p) =>
      m`<circle class="dot" data-at="${p.at}" data-v="${p.value}" cx="${r(middle(p))}" cy="${r(y(p.value))}" r="2.5"><title>${axis.label(p.at)}: ${neutral(p.value)} ${o.unit}</title></circle>`,
  );
  return points.length === 0 ? [] : [m`<path class="line" d="${d}"/>`, ...dots];
}

function seriesDescription(points: readonly SeriesPoint[], o: SeriesOptions): string {
  const { axis } = o;
  const peak = points.reduce((best, p) => (p.value > best.value ? p : best), {
    at: axis.from,
    value: 0,
  });
  return (
    `${o.title}, from ${axis.label(axis.from)} to ${axis.label(axis.to)} (${axis.caption}): ` +
    `${plural(points.length, 'bucket')} with sending, highest ${neutral(peak.value)} ${o.unit} at ${axis.label(peak.at)}` +
    spansDescription(o.spans)
  );
}

/** "; 2 pauses shaded (outside the send window); 14 waits of single batches marked on the axis" */
function spansDescription(spans: readonly Span[]): string {
  const major = spans.filter((s) => !s.minor);
  const minor = spans.length - major.length;
  const labels = [...new Set(major.map((s) => s.label))].join('; ');
  return (
    (major.length > 0 ? `; ${plural(major.length, 'pause')} shaded (${labels})` : '') +
    (minor > 0 ? `; ${plural(minor, 'wait')} of single batches marked on the axis` : '')
  );
}
