// The page's charts pinned for small fixed inputs: geometry, classes, labels and text alternatives.
import { describe, expect, it } from 'vitest';
import { histogram, horizontalBars, series, stackedBar } from '../../src/report/html/svg.js';
import { neutral } from '../../src/report/html/numbers.js';

const utc = (at: number) => new Date(at).toISOString().slice(11, 16);

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

  it('a time series: bars per minute, a pause shaded with its reason, a wait ticked, the axis ends in UTC', () => {
    const t0 = Date.UTC(2026, 0, 1, 9, 0);
    const svg = series(
      [
        { at: t0, value: 2 },
        { at: t0 + 120_000, value: 1 },
      ],
      {
        id: 's',
        title: 'Rate',
        unit: 'messages per second',
        from: t0,
        to: t0 + 180_000,
        style: 'bars',
        spans: [
          { label: 'outside the send window', from: t0 + 60_000, to: t0 + 120_000 },
          { label: 'a batch waiting', from: t0 + 150_000, to: t0 + 152_000, minor: true },
        ],
        timeLabel: utc,
      },
    ).html;
    expect(svg).toMatchInlineSnapshot(
      `"<svg class="chart" role="img" aria-labelledby="s-t s-d" viewBox="0 0 600 170" preserveAspectRatio="xMinYMin meet" xmlns="http://www.w3.org/2000/svg"><title id="s-t">Rate</title><desc id="s-d">messages per second per minute from 09:00 to 09:03: 2 minutes with sending, highest 2 at 09:00; 1 pause shaded (outside the send window); 1 wait of single batches marked on the axis</desc><g class="pause"><rect x="236" y="6" width="180" height="124"><title>outside the send window</title></rect></g><rect class="tick" x="506" y="126" width="6" height="4"><title>a batch waiting</title></rect><line class="axis" x1="56" y1="130" x2="596" y2="130"/><text class="label" x="52" y="12" text-anchor="end"><tspan data-n="2">2</tspan></text><text class="label" x="52" y="130" text-anchor="end">0</text><rect class="bar" x="56" y="6" width="179" height="124"/><rect class="bar" x="416" y="68" width="179" height="62"/><text class="label" x="56" y="146">09:00</text><text class="label" x="596" y="146" text-anchor="end">09:03</text></svg>"`,
    );
  });

  it('a line of one minute still shows: a dot', () => {
    const t0 = Date.UTC(2026, 0, 1, 9, 0);
    const svg = series([{ at: t0, value: 40 }], {
      id: 'l',
      title: 'Latency',
      unit: 'ms',
      from: t0,
      to: t0 + 5000,
      style: 'line',
      spans: [],
      timeLabel: utc,
    }).html;
    expect(svg).toContain(
      '<path class="line" d="M326 6"/><circle class="dot" cx="326" cy="6" r="3"/>',
    );
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
