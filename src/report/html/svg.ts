// The page's charts as inline SVG strings: a stacked bar, horizontal bars, a histogram and a time
// series. Colours come from the page's CSS classes (light and dark), each chart carries its title
// and a text description, and every bar its value as text, so no chart speaks in colour alone.
import type { Markup } from './escape.js';
import { html as m } from './escape.js';
import { neutral, num } from './numbers.js';
import { plural } from '../../shared/count.js';

export interface Bar {
  /** CSS class suffix: `c-accepted`. */
  key: string;
  label: string;
  count: number;
}

/** Coordinates with at most one decimal: stable text for the pinned tests, small files. */
function r(n: number): string {
  return String(Math.round(n * 10) / 10);
}

function frame(
  id: string,
  title: string,
  desc: string,
  width: number,
  height: number,
  body: Markup[],
): Markup {
  return m`<svg class="chart" role="img" aria-labelledby="${id}-t ${id}-d" viewBox="0 0 ${width} ${height}" preserveAspectRatio="xMinYMin meet" xmlns="http://www.w3.org/2000/svg"><title id="${id}-t">${title}</title><desc id="${id}-d">${desc}</desc>${body}</svg>`;
}

function describe(bars: readonly Bar[]): string {
  return bars.map((b) => `${b.label}: ${neutral(b.count)}`).join('; ');
}

/** One bar split by share, each part labelled with its share where it has room. */
export function stackedBar(id: string, title: string, bars: readonly Bar[]): Markup {
  const width = 600;
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
  return frame(id, title, describe(bars), width, 30, parts);
}

/** One labelled bar per row, longest first as given: the delivery funnel, groups by code. */
export function horizontalBars(id: string, title: string, bars: readonly Bar[]): Markup {
  const width = 600;
  const labelWidth = 170;
  const row = 24;
  const max = Math.max(1, ...bars.map((b) => b.count));
  const body = bars.map((bar, i) => {
    const y = i * row;
    const w = ((width - labelWidth - 70) * bar.count) / max;
    return m`<g class="c-${bar.key}"><text class="label" x="0" y="${y + 16}">${bar.label}</text><rect x="${labelWidth}" y="${y + 3}" width="${r(w)}" height="${row - 6}"/><text class="value" x="${r(labelWidth + w + 6)}" y="${y + 16}">${num(bar.count, 0, 'tspan')}</text></g>`;
  });
  return frame(id, title, describe(bars), width, Math.max(row, bars.length * row), body);
}

/** Vertical bars with their labels below and counts above: the delivery-time histogram. */
export function histogram(id: string, title: string, bars: readonly Bar[]): Markup {
  const width = 600;
  const height = 160;
  const plot = height - 36;
  const slot = width / Math.max(1, bars.length);
  const max = Math.max(1, ...bars.map((b) => b.count));
  const body = bars.map((bar, i) => {
    const h = (plot - 14) * (bar.count / max);
    const x = i * slot;
    return m`<g class="c-${bar.key}"><rect x="${r(x + 4)}" y="${r(plot - h)}" width="${r(slot - 8)}" height="${r(h)}"/><text class="value" x="${r(x + slot / 2)}" y="${r(plot - h - 3)}" text-anchor="middle">${num(bar.count, 0, 'tspan')}</text><text class="label" x="${r(x + slot / 2)}" y="${plot + 16}" text-anchor="middle">${bar.label}</text></g>`;
  });
  return frame(id, title, describe(bars), width, height, body);
}

export interface SeriesPoint {
  /** ms since the epoch: the start of the minute. */
  at: number;
  value: number;
}

export interface Span {
  label: string;
  from: number;
  to: number;
  /** A short wait of some batches, not of the sending: a tick on the axis, not a shaded band. */
  minor?: boolean;
}

export interface SeriesOptions {
  id: string;
  title: string;
  /** What a value is: "messages per second". */
  unit: string;
  from: number;
  to: number;
  /** Bars (one per minute) or a line through the minutes. */
  style: 'bars' | 'line';
  /** Shaded and labelled: pauses. */
  spans: readonly Span[];
  /** Axis labels: times as the page writes them (UTC). */
  timeLabel: (at: number) => string;
  decimals?: number;
}

/** Values over time with the pauses shaded; the x axis is time, the y axis starts at zero. */
export function series(points: readonly SeriesPoint[], o: SeriesOptions): Markup {
  const width = 600;
  const height = 170;
  const left = 56;
  const plot = 130;
  const span = Math.max(60_000, o.to - o.from);
  const x = (at: number) => left + ((width - left - 4) * (at - o.from)) / span;
  const max = points.reduce((top, p) => Math.max(top, p.value), 0) || 1;
  const y = (v: number) => 6 + (plot - 6) * (1 - v / max);
  const minute = Math.max(1, x(o.from + 60_000) - x(o.from) - 1);
  const body: Markup[] = o.spans.map((s) => {
    const w = r(Math.max(2, x(s.to) - x(s.from)));
    return s.minor
      ? m`<rect class="tick" x="${r(x(s.from))}" y="${plot - 4}" width="${w}" height="4"><title>${s.label}</title></rect>`
      : m`<g class="pause"><rect x="${r(x(s.from))}" y="6" width="${w}" height="${plot - 6}"><title>${s.label}</title></rect></g>`;
  });
  // Large values need no decimals, and their label must fit left of the axis.
  const decimals = max < 10 ? (o.decimals ?? 0) : 0;
  body.push(
    m`<line class="axis" x1="${left}" y1="${plot}" x2="${width - 4}" y2="${plot}"/><text class="label" x="${left - 4}" y="12" text-anchor="end">${num(max, decimals, 'tspan')}</text><text class="label" x="${left - 4}" y="${plot}" text-anchor="end">0</text>`,
  );
  if (o.style === 'bars') {
    for (const p of points) {
      body.push(
        m`<rect class="bar" x="${r(x(p.at))}" y="${r(y(p.value))}" width="${r(minute)}" height="${r(plot - y(p.value))}"/>`,
      );
    }
  } else if (points.length > 0) {
    const d = points
      .map((p, i) => `${i === 0 ? 'M' : 'L'}${r(x(p.at + 30_000))} ${r(y(p.value))}`)
      .join(' ');
    body.push(m`<path class="line" d="${d}"/>`);
    // A line of one point draws nothing: a dot shows it.
    if (points.length === 1) {
      body.push(
        m`<circle class="dot" cx="${r(x(points[0]!.at + 30_000))}" cy="${r(y(points[0]!.value))}" r="3"/>`,
      );
    }
  }
  body.push(
    m`<text class="label" x="${left}" y="${plot + 16}">${o.timeLabel(o.from)}</text><text class="label" x="${width - 4}" y="${plot + 16}" text-anchor="end">${o.timeLabel(o.to)}</text>`,
  );
  const peak = points.reduce((best, p) => (p.value > best.value ? p : best), {
    at: o.from,
    value: 0,
  });
  const desc =
    `${o.unit} per minute from ${o.timeLabel(o.from)} to ${o.timeLabel(o.to)}: ${plural(points.length, 'minute')} with sending, ` +
    `highest ${neutral(peak.value, o.decimals ?? 0)} at ${o.timeLabel(peak.at)}` +
    spansDescription(o.spans);
  return frame(o.id, o.title, desc, width, height, body);
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
