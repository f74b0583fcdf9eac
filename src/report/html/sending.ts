// The page's "sending over time": messages answered and gateway latency per bucket (a length fitted
// to the campaign's), with the pauses (send window, retry waits, outages) shaded, from its timeline.
import { html, type Markup } from './escape.js';
import { duration, num } from './numbers.js';
import { chooseStep, timeAxis, type TimeAxis } from './scale.js';
import {
  SERIES_PLOT,
  bothSizes,
  series,
  seriesPlot,
  type SeriesOptions,
  type SeriesPoint,
  type Span,
} from './svg.js';
import { countsTable, wideTable } from './table.js';
import {
  rebucket,
  type BucketTuple,
  type PauseKind,
  type PauseTuple,
  type Timeline,
} from './timeline.js';

const PAUSE_LABELS: Record<PauseKind, string> = {
  window: 'outside the send window',
  'retry wait': 'a batch waiting to be sent again',
  outage: 'the gateway was down: probed, no new batches',
};

/** `HTTP 503 ×10, connection refused ×2`: why pauses were taken, most often first. */
function reasonsText(reasons: ReadonlyMap<string, number>): string {
  return [...reasons]
    .sort((a, b) => b[1] - a[1])
    .map(([reason, n]) => (n === 1 ? reason : `${reason} ×${n}`))
    .join(', ');
}

/** A span's label with why it was taken: `a batch waiting to be sent again (HTTP 503)`. */
function labelled(kind: PauseKind, reasons: ReadonlyMap<string, number>): string {
  return reasons.size === 0
    ? PAUSE_LABELS[kind]
    : `${PAUSE_LABELS[kind]} (${reasonsText(reasons)})`;
}

/** Every run's buckets merged into buckets `step` long, in time order. */
export function mergeBuckets(timeline: Timeline, step: number): BucketTuple[] {
  return rebucket(
    timeline.runs.flatMap((run) => run.buckets),
    step,
  );
}

/** Pauses of one kind that overlap or touch become one span: 4 batches waiting at once are one pause. */
export function mergePauses(timeline: Timeline): Span[] {
  // A pause ends when its run does: a run interrupted while a batch waited recorded the whole wait.
  const all = timeline.runs
    .flatMap((run) =>
      run.pauses
        .map((p): PauseTuple => [p[0], p[1], Math.min(p[2], run.finishedAt), p[3]])
        .filter((p) => p[2] > p[1]),
    )
    .sort((a, b) => a[1] - b[1]);
  const open = new Map<PauseKind, { kind: PauseKind; span: Span; reasons: Map<string, number> }>();
  const merged: Array<{ kind: PauseKind; span: Span; reasons: Map<string, number> }> = [];
  for (const [kind, from, to, reason] of all) {
    let current = open.get(kind);
    if (current && from <= current.span.to) current.span.to = Math.max(current.span.to, to);
    else {
      current = {
        kind,
        span: { label: '', from, to, minor: kind === 'retry wait' },
        reasons: new Map(),
      };
      open.set(kind, current);
      merged.push(current);
    }
    if (reason) current.reasons.set(reason, (current.reasons.get(reason) ?? 0) + 1);
  }
  return merged.map(({ kind, span, reasons }) => ({
    ...span,
    label: labelled(kind, reasons),
    reasons,
  }));
}

export function sendingSection(
  timeline: Timeline | undefined,
  time: (at: number) => Markup,
): Markup {
  if (!timeline || timeline.runs.length === 0) {
    return html`<section id="sending">
      <h2>Sending over time</h2>
      <p class="muted">
        Not recorded: the campaign's state holds no timeline (a report without a campaign, or one
        sent through the programmatic API).
      </p>
    </section>`;
  }
  const spans = mergePauses(timeline);
  return html`<section id="sending">
    <h2>Sending over time</h2>
    ${charts(timeline, spans)}
    <p class="muted">
      ${marksText(spans)}Times on the charts and in their figures are UTC; the other times on the
      page are the reader's. A rate limit of our own (<code>--rate</code>) paces sending without
      pausing it.
    </p>
    ${wideTable(runsTable(timeline, time))} ${pauseList(spans, time)}
  </section>`;
}

/** The charts' buckets: as long as the campaign needs, no shorter than any run recorded. */
export function chartBuckets(timeline: Timeline): { axis: TimeAxis; buckets: BucketTuple[] } {
  // From when sending began (validation and the prompt are no part of it), or an earlier pause.
  const from = Math.min(
    ...timeline.runs.map((r) => Math.min(r.sendingFrom, ...r.pauses.map((p) => p[1]))),
  );
  const to = Math.max(...timeline.runs.map((r) => r.finishedAt));
  const recorded = Math.max(...timeline.runs.map((r) => r.step));
  const step = chooseStep(from, to, recorded);
  const axis = timeAxis(from, to, step, SERIES_PLOT.right - SERIES_PLOT.left);
  return { axis, buckets: mergeBuckets(timeline, step) };
}

/** A bucket's mean latency in whole milliseconds; undefined when it had no batch. */
export function meanLatency(bucket: BucketTuple): number | undefined {
  return bucket[2] === 0 ? undefined : Math.round(bucket[3] / bucket[2]);
}

/** `100 ms`, `5 seconds`, `minute`, `3 hours`: a bucket's length as the titles say it. */
export function stepName(step: number): string {
  if (step < 1000) return `${step} ms`;
  const units: Array<[number, string]> = [
    [7 * 86_400_000, 'week'],
    [86_400_000, 'day'],
    [3_600_000, 'hour'],
    [60_000, 'minute'],
    [1000, 'second'],
  ];
  const [size, unit] = units.find(([size]) => step % size === 0) ?? [1000, 'second'];
  const n = step / size;
  return n === 1 ? unit : `${n} ${unit}s`;
}

/** Messages answered and mean latency, bucket by bucket, over the whole campaign; and their figures. */
function charts(timeline: Timeline, spans: readonly Span[]): Markup {
  const { axis, buckets } = chartBuckets(timeline);
  const per = stepName(axis.step);
  const answered: SeriesPoint[] = buckets.map((b) => ({ at: b[0], value: b[1] }));
  const latency: SeriesPoint[] = buckets.flatMap((b) => {
    const value = meanLatency(b);
    return value === undefined ? [] : [{ at: b[0], value }];
  });
  const rateTitle = `Messages answered per ${per}`;
  const latencyTitle = `Mean gateway latency per batch, per ${per}`;
  const rate = { id: 'rate-chart', title: rateTitle, unit: 'messages', style: 'bars' } as const;
  const mean = { id: 'latency-chart', title: latencyTitle, unit: 'ms', style: 'line' } as const;
  return html`<h3>${rateTitle}</h3>
    ${bothSizes((size) => series(answered, { ...rate, ...sized(axis, size), spans }))}
    <h3>${latencyTitle}</h3>
    ${bothSizes((size) => series(latency, { ...mean, ...sized(axis, size), spans }))}
    ${figuresTable(axis, buckets, per)}`;
}

/** The same buckets at a chart's size: a phone's narrower plot has room for fewer time ticks. */
function sized(axis: TimeAxis, size: SeriesOptions['size']): Pick<SeriesOptions, 'axis' | 'size'> {
  if (size !== 'narrow') return { axis, size };
  const plot = seriesPlot(size);
  return { axis: timeAxis(axis.from, axis.to, axis.step, plot.right - plot.left), size };
}

/** The charts' figures, bucket by bucket: the same numbers the bars and the line are drawn from. */
function figuresTable(axis: TimeAxis, buckets: readonly BucketTuple[], per: string): Markup {
  const rows = buckets.map((b) => {
    const mean = meanLatency(b);
    return html`<tr data-at="${b[0]}">
      <td>${axis.label(b[0])}</td>
      <td class="n" data-answered>${num(b[1])}</td>
      <td class="n">${num(b[2])}</td>
      <td class="n" data-latency>${mean === undefined ? '' : num(mean)}</td>
      <td class="n">${b[2] === 0 ? '' : num(Math.round(b[4]))}</td>
    </tr>`;
  });
  return html`<details id="sending-figures">
    <summary>The charts' figures, per ${per} (${axis.caption})</summary>
    ${countsTable(
      [
        'from',
        { n: 'messages answered' },
        { n: 'batches' },
        { n: 'mean latency (ms)' },
        { n: 'max latency (ms)' },
      ],
      rows,
    )}
  </details>`;
}

function runsTable(timeline: Timeline, time: (at: number) => Markup): Markup {
  // A campaign moved between hosts (a fleet sharing its state) names each run's: the page is
  // the same whichever host draws it.
  const hosts = new Set(timeline.runs.map((run) => run.host));
  const byHost = hosts.size > 1;
  const runs = timeline.runs.map((run, i) => {
    const messages = run.buckets.reduce((sum, b) => sum + b[1], 0);
    const batches = run.buckets.reduce((sum, b) => sum + b[2], 0);
    // As the terminal's summary counts them: from when sending began, and a wait for the send
    // window is no time spent sending (nor is one before sending began).
    const waited = run.pauses.reduce((sum, p) => sum + (p[0] === 'window' ? p[2] - p[1] : 0), 0);
    const before = run.sendingFrom - run.startedAt;
    const sendingMs = Math.max(1, run.finishedAt - run.startedAt - Math.max(waited, before));
    return html`<tr>
      <td class="n">${num(i + 1)}</td>
      ${byHost ? html`<td>${run.host ?? 'not recorded'}</td>` : ''}
      <td>${time(run.startedAt)}</td>
      <td>${duration(sendingMs)}</td>
      <td>${waited > 0 ? duration(waited) : 'none'}</td>
      <td class="n">${num(messages)}</td>
      <td class="n">${num(batches)}</td>
      <td class="n">${num(Math.round((messages / (sendingMs / 1000)) * 10) / 10, 1)}</td>
    </tr>`;
  });
  return html`<table class="counts">
    <thead>
      <tr>
        <th scope="col" class="n">run</th>
        ${byHost ? html`<th scope="col">host</th>` : ''}
        <th scope="col">started</th>
        <th scope="col">sending</th>
        <th scope="col">window wait</th>
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

/** What the charts mark, said only when they mark it. */
function marksText(spans: readonly Span[]): string {
  const shaded = spans.some((s) => !s.minor) ? 'Shaded: pauses (listed below). ' : '';
  const ticked = spans.some((s) => s.minor)
    ? 'Ticks on the time axis: batches waiting to be sent again. '
    : '';
  return shaded + ticked;
}

function pauseList(spans: readonly Span[], time: (at: number) => Markup): Markup {
  const major = spans.filter((s) => !s.minor);
  const minor = spans.filter((s) => s.minor);
  const waited = minor.reduce((sum, s) => sum + s.to - s.from, 0);
  const reasons = new Map<string, number>();
  for (const s of minor)
    for (const [r, n] of s.reasons ?? []) reasons.set(r, (reasons.get(r) ?? 0) + n);
  const why = reasons.size === 0 ? '' : ` (${reasonsText(reasons)})`;
  const items = major
    .slice(0, 20)
    .map((s) => html`<li>${time(s.from)} for ${duration(s.to - s.from)}: ${s.label}</li>`);
  if (major.length > 20) items.push(html`<li>and ${num(major.length - 20)} more</li>`);
  if (minor.length > 0) {
    items.push(
      html`<li>
        ${num(minor.length)} times some batches waited to be sent again${why}, ${duration(waited)}
        in all: ticked on the time axis
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
