// The page's charts pinned for small fixed inputs: geometry, classes, labels and text alternatives.
import { describe, expect, it } from 'vitest';
import { histogram, horizontalBars, series, stackedBar } from '../../../src/report/html/svg.js';
import { neutral } from '../../../src/report/html/numbers.js';
import { timeAxis } from '../../../src/report/html/scale.js';

describe('charts', () => {
  it('a stacked bar: parts by share, a share label only where it fits, a title and description', () => {
    const svg = stackedBar('o', 'Outcomes', [
      { key: 'accepted', label: 'accepted', count: 3 },
      { key: 'rejected', label: 'rejected', count: 1 },
      { key: 'failed', label: 'failed', count: 0 },
    ]).html;
    expect(svg).toMatchInlineSnapshot(
      `"<svg class="chart" role="img" aria-labelledby="o-t o-d" viewBox="0 0 600 30" preserveAspectRatio="xMinYMin meet" xmlns="http://www.w3.org/2000/svg"><title id="o-t">Outcomes</title><desc id="o-d">accepted: 3; rejected: 1; failed: 0</desc><g class="c-accepted"><rect x="0" y="0" width="450" height="30"><title>accepted: 3</title></rect><text x="225" y="20" text-anchor="middle"><tspan data-n="75" data-f="1">75.0</tspan>%</text></g><g class="c-rejected"><rect x="450" y="0" width="150" height="30"><title>rejected: 1</title></rect><text x="525" y="20" text-anchor="middle"><tspan data-n="25" data-f="1">25.0</tspan>%</text></g></svg>"`,
    );
  });

  it('an empty stacked bar is one grey bar, not a division by zero', () => {
    expect(
      stackedBar('e', 'None', [{ key: 'accepted', label: 'accepted', count: 0 }]).html,
    ).toContain('<rect class="empty" x="0" y="0" width="600" height="30"/>');
  });

  it('horizontal bars: label, bar scaled to the largest, value', () => {
    const svg = horizontalBars('f', 'Funnel', [
      { key: 'sent', label: 'sent', count: 4 },
      { key: 'delivered', label: 'delivered', count: 2 },
    ]).html;
    expect(svg).toMatchInlineSnapshot(
      `"<svg class="chart" role="img" aria-labelledby="f-t f-d" viewBox="0 0 600 48" preserveAspectRatio="xMinYMin meet" xmlns="http://www.w3.org/2000/svg"><title id="f-t">Funnel</title><desc id="f-d">sent: 4; delivered: 2</desc><g class="c-sent"><text class="label" x="0" y="16">sent</text><rect x="170" y="3" width="360" height="18"/><text class="value" x="536" y="16"><tspan data-n="4">4</tspan></text></g><g class="c-delivered"><text class="label" x="0" y="40">delivered</text><rect x="170" y="27" width="180" height="18"/><text class="value" x="356" y="40"><tspan data-n="2">2</tspan></text></g></svg>"`,
    );
  });

  it('a histogram: one slot per bucket, counts above, labels below', () => {
    const svg = histogram('h', 'Times', [
      { key: 'delivered', label: '< 1 s', count: 2 },
      { key: 'delivered', label: '≥ 1 s', count: 1 },
    ]).html;
    expect(svg).toMatchInlineSnapshot(
      `"<svg class="chart" role="img" aria-labelledby="h-t h-d" viewBox="0 0 600 160" preserveAspectRatio="xMinYMin meet" xmlns="http://www.w3.org/2000/svg"><title id="h-t">Times</title><desc id="h-d">&lt; 1 s: 2; ≥ 1 s: 1</desc><g class="c-delivered"><rect x="4" y="14" width="292" height="110"/><text class="value" x="150" y="11" text-anchor="middle"><tspan data-n="2">2</tspan></text><text class="label" x="150" y="140" text-anchor="middle">&lt; 1 s</text></g><g class="c-delivered"><rect x="304" y="69" width="292" height="55"/><text class="value" x="450" y="66" text-anchor="middle"><tspan data-n="1">1</tspan></text><text class="label" x="450" y="140" text-anchor="middle">≥ 1 s</text></g></svg>"`,
    );
  });

  it("a phone's copy: 360 wide, ids of its own, a histogram as one row per bucket", () => {
    const bars = [
      { key: 'delivered', label: '30 s–1 min', count: 2 },
      { key: 'delivered', label: '1–5 min', count: 1 },
    ];
    const svg = histogram('h', 'Times', bars, 'narrow').html;
    expect(svg).toMatchInlineSnapshot(
      `"<svg class="chart narrow" role="img" aria-labelledby="h-narrow-t h-narrow-d" viewBox="0 0 360 48" preserveAspectRatio="xMinYMin meet" xmlns="http://www.w3.org/2000/svg"><title id="h-narrow-t">Times</title><desc id="h-narrow-d">30 s–1 min: 2; 1–5 min: 1</desc><g class="c-delivered"><text class="label" x="0" y="16">30 s–1 min</text><rect x="100" y="3" width="190" height="18"/><text class="value" x="296" y="16"><tspan data-n="2">2</tspan></text></g><g class="c-delivered"><text class="label" x="0" y="40">1–5 min</text><rect x="100" y="27" width="95" height="18"/><text class="value" x="201" y="40"><tspan data-n="1">1</tspan></text></g></svg>"`,
    );
  });

  it('a time series: a bar per bucket inside the plot, a pause shaded, a wait ticked, ticks in UTC', () => {
    const t0 = Date.UTC(2026, 0, 1, 9, 0);
    const axis = timeAxis(t0, t0 + 180_000, 60_000, 536);
    const svg = series(
      [
        { at: t0, value: 20 },
        { at: t0 + 120_000, value: 7 },
      ],
      {
        id: 's',
        title: 'Messages answered per minute',
        unit: 'messages',
        axis,
        style: 'bars',
        spans: [
          { label: 'outside the send window', from: t0 + 60_000, to: t0 + 120_000 },
          { label: 'a batch waiting', from: t0 + 150_000, to: t0 + 152_000, minor: true },
        ],
      },
    ).html;
    expect(svg).toMatchInlineSnapshot(
      `"<svg class="chart" role="img" aria-labelledby="s-t s-d" viewBox="0 0 600 192" preserveAspectRatio="xMinYMin meet" xmlns="http://www.w3.org/2000/svg"><title id="s-t">Messages answered per minute</title><desc id="s-d">Messages answered per minute, from 09:00 to 09:03 (UTC, 1 Jan 2026): 2 buckets with sending, highest 20 messages at 09:00; 1 pause shaded (outside the send window); 1 wait of single batches marked on the axis</desc><g class="pause"><rect x="234.7" y="22" width="178.7" height="124"><title>outside the send window</title></rect></g><line class="grid" x1="56" y1="146" x2="592" y2="146"/><text class="label" x="52" y="150" text-anchor="end"><tspan data-n="0">0</tspan></text><line class="grid" x1="56" y1="115" x2="592" y2="115"/><text class="label" x="52" y="119" text-anchor="end"><tspan data-n="5">5</tspan></text><line class="grid" x1="56" y1="84" x2="592" y2="84"/><text class="label" x="52" y="88" text-anchor="end"><tspan data-n="10">10</tspan></text><line class="grid" x1="56" y1="53" x2="592" y2="53"/><text class="label" x="52" y="57" text-anchor="end"><tspan data-n="15">15</tspan></text><line class="grid" x1="56" y1="22" x2="592" y2="22"/><text class="label" x="52" y="26" text-anchor="end"><tspan data-n="20">20</tspan></text><text class="label unit" x="56" y="14">messages</text><rect class="bar" data-at="1767258000000" data-v="20" x="56.5" y="22" width="177.7" height="124"><title>09:00: 20 messages</title></rect><rect class="bar" data-at="1767258120000" data-v="7" x="413.8" y="102.6" width="177.7" height="43.4"><title>09:02: 7 messages</title></rect><rect class="tick" x="502.7" y="142" width="6" height="4"><title>a batch waiting</title></rect><line class="axis" x1="56" y1="146" x2="592" y2="146"/><line class="axis" x1="56" y1="146" x2="56" y2="150"/><text class="label" x="56" y="162" text-anchor="start">09:00</text><line class="axis" x1="234.7" y1="146" x2="234.7" y2="150"/><text class="label" x="234.7" y="162" text-anchor="middle">09:01</text><line class="axis" x1="413.3" y1="146" x2="413.3" y2="150"/><text class="label" x="413.3" y="162" text-anchor="middle">09:02</text><line class="axis" x1="592" y1="146" x2="592" y2="150"/><text class="label" x="592" y="162" text-anchor="end">09:03</text><text class="label caption" x="592" y="180" text-anchor="end">UTC, 1 Jan 2026</text></svg>"`,
    );
  });

  it('a line breaks where no batch was sent, with a dot on every bucket', () => {
    const t0 = Date.UTC(2026, 0, 1, 9, 0);
    const axis = timeAxis(t0, t0 + 5000, 1000, 536);
    const svg = series(
      [
        { at: t0, value: 40 },
        { at: t0 + 1000, value: 20 },
        { at: t0 + 3000, value: 10 },
      ],
      { id: 'l', title: 'Latency', unit: 'ms', axis, style: 'line', spans: [] },
    ).html;
    expect(svg).toContain('<path class="line" d="M109.6 22 L216.8 84 M431.2 115"/>');
    expect(svg.match(/<circle class="dot"/g)).toHaveLength(3);
  });

  it.each([
    [0, 0, '0'],
    [1234, 0, '1234'],
    [12345, 0, '12\u202F345'],
    [1234567.25, 2, '1\u202F234\u202F567.25'],
    [-98765, 0, '-98\u202F765'],
    [12.5, 1, '12.5'],
  ])('%s with %s decimals reads %s without the page script', (value, decimals, text) => {
    expect(neutral(value, decimals)).toBe(text);
  });
});
