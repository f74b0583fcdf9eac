// The page's "sending over time": messages per second and gateway latency per minute, with the
// pauses (send window, retry waits, outages) shaded, from the campaign's timeline.
import { html, type Markup } from './escape.js';
import { duration, num } from './numbers.js';
import { series, type SeriesPoint, type Span } from './svg.js';
import type { MinuteTuple, PauseKind, Timeline } from './timeline.js';

const PAUSE_LABELS: Record<PauseKind, string> = {
  window: 'outside the send window',
  'retry wait': 'a batch waiting to be sent again (429, 503, no connection)',
  outage: 'the gateway was down: probed, no new batches',
};

/** Minutes of every run added together, in time order. */
export function mergeMinutes(timeline: Timeline): MinuteTuple[] {
  const byMinute = new Map<number, MinuteTuple>();
  for (const run of timeline.runs) {
    for (const m of run.minutes) {
      const entry = byMinute.get(m[0]);
      if (!entry) byMinute.set(m[0], [...m]);
      else {
        entry[1] += m[1];
        entry[2] += m[2];
        entry[3] += m[3];
        entry[4] = Math.max(entry[4], m[4]);
      }
    }
  }
  return [...byMinute.values()].sort((a, b) => a[0] - b[0]);
}

/** Pauses of one kind that overlap or touch become one span: 4 batches waiting at once are one pause. */
export function mergePauses(timeline: Timeline): Span[] {
  const all = timeline.runs.flatMap((run) => run.pauses).sort((a, b) => a[1] - b[1]);
  const open = new Map<PauseKind, Span>();
  const spans: Span[] = [];
  for (const [kind, from, to] of all) {
    const current = open.get(kind);
    if (current && from <= current.to) current.to = Math.max(current.to, to);
    else {
      const span: Span = { label: PAUSE_LABELS[kind], from, to, minor: kind === 'retry wait' };
      open.set(kind, span);
      spans.push(span);
    }
  }
  return spans;
}

function utcLabel(at: number): string {
  return `${new Date(at).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

export function sendingSection(
  timeline: Timeline | undefined,
  time: (at: number) => Markup,
): Markup {
  if (!timeline || timeline.runs.length === 0) {
    return html`<section id="sending">
      <h2>Sending over time</h2>
      <p class="muted">
        Not recorded: the campaign's state holds no timeline (a report without a campaign, one sent
        by an earlier version, or through the programmatic API).
      </p>
    </section>`;
  }
  const spans = mergePauses(timeline);
  return html`<section id="sending">
    <h2>Sending over time</h2>
    ${charts(timeline, spans)}
    <p class="muted">
      Shaded: pauses. Per minute of the wall clock (UTC); a rate limit of our own
      (<code>--rate</code>) paces sending without pausing it.
    </p>
    ${runsTable(timeline, time)} ${pauseList(spans, time)}
  </section>`;
}

/** Messages per second and mean latency, minute by minute, over the whole campaign. */
function charts(timeline: Timeline, spans: readonly Span[]): Markup {
  const minutes = mergeMinutes(timeline);
  const from = Math.min(...timeline.runs.map((r) => r.startedAt));
  const to = Math.max(...timeline.runs.map((r) => r.finishedAt));
  const rate: SeriesPoint[] = minutes.map((m) => ({
    at: m[0],
    value: Math.round((m[1] / 60) * 10) / 10,
  }));
  const latency: SeriesPoint[] = minutes.map((m) => ({
    at: m[0],
    value: m[2] === 0 ? 0 : Math.round(m[3] / m[2]),
  }));
  const common = { from, to, spans, timeLabel: utcLabel };
  const rateChart = series(rate, {
    ...common,
    id: 'rate-chart',
    title: 'Messages answered per second, by minute',
    unit: 'messages per second',
    style: 'bars',
    decimals: 1,
  });
  const latencyChart = series(latency, {
    ...common,
    id: 'latency-chart',
    title: 'Mean gateway latency per batch (ms), by minute',
    unit: 'mean latency in ms',
    style: 'line',
  });
  return html`${rateChart}${latencyChart}`;
}

function runsTable(timeline: Timeline, time: (at: number) => Markup): Markup {
  const runs = timeline.runs.map((run, i) => {
    const messages = run.minutes.reduce((sum, m) => sum + m[1], 0);
    const batches = run.minutes.reduce((sum, m) => sum + m[2], 0);
    const seconds = Math.max(1, run.finishedAt - run.startedAt) / 1000;
    return html`<tr>
      <td class="n">${num(i + 1)}</td>
      <td>${time(run.startedAt)}</td>
      <td>${duration(run.finishedAt - run.startedAt)}</td>
      <td class="n">${num(messages)}</td>
      <td class="n">${num(batches)}</td>
      <td class="n">${num(Math.round((messages / seconds) * 10) / 10, 1)}</td>
    </tr>`;
  });
  return html`<table class="counts">
    <thead>
      <tr>
        <th scope="col" class="n">run</th>
        <th scope="col">started</th>
        <th scope="col">took</th>
        <th scope="col" class="n">messages answered</th>
        <th scope="col" class="n">batches</th>
        <th scope="col" class="n">per second</th>
      </tr>
    </thead>
    <tbody>
      ${runs}
    </tbody>
  </table>`;
}

function pauseList(spans: readonly Span[], time: (at: number) => Markup): Markup {
  const major = spans.filter((s) => !s.minor);
  const minor = spans.filter((s) => s.minor);
  const waited = minor.reduce((sum, s) => sum + s.to - s.from, 0);
  const items = major
    .slice(0, 20)
    .map((s) => html`<li>${time(s.from)} for ${duration(s.to - s.from)}: ${s.label}</li>`);
  if (major.length > 20) items.push(html`<li>and ${num(major.length - 20)} more</li>`);
  if (minor.length > 0) {
    items.push(
      html`<li>
        ${num(minor.length)} times some batches waited to be sent again (429, 503, no connection),
        ${duration(waited)} in all: marked on the axis
      </li>`,
    );
  }
  return items.length === 0
    ? html`<p>No pauses.</p>`
    : html`<h3>Pauses</h3>
        <ul>
          ${items}
        </ul>`;
}
