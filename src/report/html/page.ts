// The campaign's HTML page: one self-contained document (inline CSS, inline SVG, one small inline
// script allowed by hash and nothing else), from the figures of collectPage (docs/report.md#the-html-page).
import { createHash } from 'node:crypto';
import { OUTCOMES } from '../../message/outcome.js';
import type { PricePerSegment } from '../../message/cost.js';
import { ATTENTION_LIMIT, type PageData, type PriceSource } from './data.js';
import type { Markup } from './escape.js';
import { html, plain } from './escape.js';
import { maskNumbers } from './mask.js';
import { commandText, type Program } from '../../shared/shell.js';
import { duration, num, pct } from './numbers.js';
import { PAGE_CSS } from './style.js';
import { bothSizes, stackedBar, horizontalBars, histogram, type Bar } from './svg.js';
import { sendingSection } from './sending.js';
import { countsTable, wideTable } from './table.js';

/**
 * Formats every number and time for the reader's locale. Without it (a mail client that runs no
 * script) the page still reads right: numbers in a neutral form, times in UTC.
 */
const SCRIPT = `(()=>{for(const e of document.querySelectorAll('[data-n]')){const f=Number(e.dataset.f||0);e.textContent=new Intl.NumberFormat(undefined,{minimumFractionDigits:f,maximumFractionDigits:f}).format(Number(e.dataset.n))}for(const e of document.querySelectorAll('time[datetime]')){const d=new Date(e.getAttribute('datetime'));if(!isNaN(d))e.textContent=d.toLocaleString()}})()`;

/** The only script the page may run; the policy also forbids every request (fonts, images, fetch). */
const POLICY = `default-src 'none'; style-src 'unsafe-inline'; img-src data:; script-src 'sha256-${createHash('sha256').update(SCRIPT).digest('base64')}'; base-uri 'none'; form-action 'none'`;

export interface PageContext {
  /** When the page was made (ms). */
  generatedAt: number;
  /** How the program is run, for the follow-up commands: `sms-send`, and where its state is. */
  program: Program;
}

/** A time as `2026-11-25 17:40:12 UTC`, which the script rewrites in the reader's time zone. */
export function time(at: number | string): Markup {
  const date = new Date(at);
  if (Number.isNaN(date.getTime())) return html`${String(at)}`;
  const iso = date.toISOString();
  return html`<time datetime="${iso}">${iso.slice(0, 19).replace('T', ' ')} UTC</time>`;
}

const OUTCOME_LABELS: Record<string, string> = {
  accepted: 'accepted',
  rejected: 'rejected',
  invalid: 'invalid',
  failed: 'failed',
  unknown: 'unknown',
  skipped: 'skipped',
};

export function renderPage(data: PageData, context: PageContext): string {
  const title = data.campaign
    ? `Campaign ${data.campaign.id}${data.campaign.rehearsal ? ', a rehearsal' : ''}`
    : `Report ${data.counts.path}`;
  const body = [
    header(data, title, context),
    campaignSection(data),
    outcomesSection(data),
    deliverySection(data),
    sendingSection(data.timeline, time),
    problemsSection(data),
    segmentsSection(data),
    attentionSection(data, context),
  ];
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${POLICY}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>${plain`${title}`.html}</title>
<style>${PAGE_CSS}</style></head>
<body><main>
${body.map((m) => m.html).join('\n')}
</main><script>${SCRIPT}</script></body></html>
`;
}

function header(data: PageData, title: string, context: PageContext): Markup {
  return html`<header>
    <h1>${title}</h1>
    <p class="muted">
      sms-send report, made ${time(context.generatedAt)} from
      <code>${data.counts.path}</code> (${data.counts.format}, ${num(data.counts.total)} rows)
    </p>
  </header>`;
}

function row(label: string, value: Markup | string | undefined): Markup | undefined {
  return value === undefined
    ? undefined
    : html`<tr>
        <th scope="row">${label}</th>
        <td>${value}</td>
      </tr>`;
}

function campaignSection(data: PageData): Markup {
  const c = data.campaign;
  if (!c) {
    return html`<section id="campaign">
      <h2>Campaign</h2>
      <p>No campaign in the state directory wrote this report: its figures are the report's own.</p>
    </section>`;
  }
  const runs = data.timeline?.runs ?? [];
  const last = runs.at(-1);
  const rows = [
    row('ID', html`<code>${c.id}</code>`),
    row(
      'status',
      c.rehearsal
        ? `${c.status}, a rehearsal: sent to a simulator only, nothing reached a phone`
        : c.status,
    ),
    row('inputs', html`${c.inputs.map((i) => html`<code>${i}</code> `)}`),
    c.followUpOf === undefined
      ? undefined
      : row('follow-up of', html`<code>${c.followUpOf}</code>`),
    // The first run's, after any wait for the send window, as the table of runs counts it; the
    // manifest's start is the newest run's.
    row('started sending', time(runs[0]?.sendingFrom ?? c.startedAt)),
    row('finished', c.finishedAt === undefined ? 'not yet' : time(c.finishedAt)),
    row('sent to', c.target),
    row('Gateway', c.gateway),
    row('runs', html`${num(c.runs)}`),
    last && row('batch size', html`${num(last.settings.batchSize)}`),
    last && row('concurrency', html`${num(last.settings.concurrency)}`),
    last &&
      row(
        'rate',
        last.settings.rate === undefined
          ? 'unlimited'
          : html`${num(last.settings.rate)} ${last.settings.rate === 1 ? 'message' : 'messages'} per
            second`,
      ),
    last && row('send window', last.settings.window ?? 'none: at any time'),
    last && row('command', commandLine(last.command)),
  ].filter((m): m is Markup => m !== undefined);
  const note = last
    ? undefined
    : html`<p class="muted">
        The settings and command of its runs were not recorded (it was sent through the programmatic
        API).
      </p>`;
  return html`<section id="campaign">
    <h2>Campaign</h2>
    <table class="facts">
      <tbody>
        ${rows}
      </tbody>
    </table>
    ${note}
  </section>`;
}

function outcomesSection(data: PageData): Markup {
  const { counts } = data;
  const bars: Bar[] = OUTCOMES.flatMap((o): Bar[] =>
    o === 'skipped'
      ? [
          { key: 'suppressed', label: 'suppressed', count: counts.suppressed },
          {
            key: 'skipped',
            label: 'skipped (not suppressed)',
            count: counts.byOutcome.skipped - counts.suppressed,
          },
        ]
      : [{ key: o, label: OUTCOME_LABELS[o]!, count: counts.byOutcome[o] }],
  );
  const rows = OUTCOMES.map((o) => {
    const suppressed =
      o === 'skipped' && counts.suppressed > 0
        ? html`<tr class="sub">
            <th scope="row"><span class="swatch c-suppressed"></span>of which suppressed</th>
            <td class="n" data-count="suppressed">${num(counts.suppressed)}</td>
            <td class="n">${pct(counts.suppressed, counts.total)}</td>
          </tr>`
        : undefined;
    // Left out by --skip-sent-by: a campaign the report names row by row had sent to them.
    const sentBefore =
      o === 'skipped' && counts.sentBefore > 0
        ? html`<tr class="sub">
            <th scope="row"><span class="swatch c-skipped"></span>of which sent before</th>
            <td class="n" data-count="sentBefore">${num(counts.sentBefore)}</td>
            <td class="n">${pct(counts.sentBefore, counts.total)}</td>
          </tr>`
        : undefined;
    const sub = html`${suppressed}${sentBefore}`;
    return html`<tr>
        <th scope="row"><span class="swatch c-${o}"></span>${o}</th>
        <td class="n" data-count="${o}">${num(counts.byOutcome[o])}</td>
        <td class="n">${pct(counts.byOutcome[o], counts.total)}</td>
      </tr>
      ${sub}`;
  });
  const extra = [
    counts.otherOutcome > 0
      ? html`<tr>
          <th scope="row">no known outcome</th>
          <td class="n" data-count="otherOutcome">${num(counts.otherOutcome)}</td>
          <td></td>
        </tr>`
      : undefined,
    counts.unreadable > 0
      ? html`<tr>
          <th scope="row">unreadable lines</th>
          <td class="n" data-count="unreadable">${num(counts.unreadable)}</td>
          <td></td>
        </tr>`
      : undefined,
  ].filter((m): m is Markup => m !== undefined);
  return html`<section id="outcomes">
    <h2>Outcomes</h2>
    ${bothSizes((size) => stackedBar('outcomes-chart', 'Outcomes by share of rows', bars, size))}
    ${countsTable(
      ['outcome', { n: 'rows' }, { n: 'share' }],
      [...rows, ...extra],
      html`<tr>
        <th scope="row">total</th>
        <td class="n" data-count="total">${num(counts.total)}</td>
        <td class="n">100%</td>
      </tr>`,
    )}
  </section>`;
}

/** Why there is no delivery report to draw: none asked for, or none received so far. */
function noReports(data: PageData): Markup {
  const accepted = num(data.funnel.accepted);
  if (data.campaign?.deliveryReportUrl === false) {
    return html`No delivery reports (${accepted} accepted): this campaign's messages carried no
      DeliveryReportUrl from its settings, so the gateway reports none, unless its input gave some
      records one of their own. A campaign sent with <code>--dlr-url</code> gets them.`;
  }
  return html`No delivery reports in this report so far (${accepted} accepted). Receive them with
    <code>sms-send dlr</code>, then make the page again.`;
}

function deliverySection(data: PageData): Markup {
  const f = data.funnel;
  const counted = f.delivered + f.undelivered + f.expired + f.pending;
  if (counted === 0) {
    return html`<section id="delivery">
      <h2>Delivery</h2>
      <p>${noReports(data)}</p>
    </section>`;
  }
  const bars: Bar[] = [
    { key: 'sent', label: 'sent', count: f.sent },
    { key: 'accepted', label: 'accepted', count: f.accepted },
    { key: 'delivered', label: 'delivered', count: f.delivered },
    { key: 'undelivered', label: 'undelivered', count: f.undelivered },
    { key: 'expired', label: 'expired', count: f.expired },
    { key: 'pending', label: 'on the way', count: f.pending },
    { key: 'awaiting', label: 'no report yet', count: f.awaiting },
  ];
  // Accepted is a share of what was sent; every delivery status, of what was accepted.
  const rows = bars.map(
    (b) =>
      html`<tr>
        <th scope="row">${b.label}</th>
        <td class="n" data-funnel="${b.key}">${num(b.count)}</td>
        <td class="n">
          ${
            b.key === 'sent'
              ? ''
              : b.key === 'accepted'
                ? html`${pct(b.count, f.sent)} of sent`
                : html`${pct(b.count, f.accepted)} of accepted`
          }
        </td>
      </tr>`,
  );
  return html`<section id="delivery">
    <h2>Delivery</h2>
    ${bothSizes((size) => horizontalBars('funnel-chart', 'From sent to delivered', bars, size))}
    ${countsTable(['step', { n: 'rows' }, { n: 'share' }], rows)} ${deliveryTimesBlock(data)}
  </section>`;
}

function deliveryTimesBlock(data: PageData): Markup {
  const t = data.deliveryTimes;
  if (t.measured === 0 || t.p50 === undefined || t.p90 === undefined || t.p99 === undefined) {
    return html`<p class="muted">
      Time to delivery: not known (the campaign's state holds no sending times for these rows).
    </p>`;
  }
  const bars = t.histogram.map((b): Bar => ({ key: 'delivered', ...b }));
  const res = t.resolution;
  const precision =
    res >= 1000
      ? html`To the second: the delivery reports' times are whole seconds, so no finer time can be
        told.`
      : html`To the millisecond, as the delivery reports' times are.`;
  return html`<h3>Time from sending to delivery</h3>
    <p>
      median ${duration(t.p50, res)}, 90th percentile ${duration(t.p90, res)}, 99th percentile
      ${duration(t.p99, res)}, over ${num(t.measured)} delivered messages.
      <span class="muted">${precision}</span>
    </p>
    ${bothSizes((size) =>
      histogram('delivery-times-chart', 'Delivered messages by time to delivery', bars, size),
    )}
    <details>
      <summary>The histogram's figures</summary>
      ${countsTable(
        ['time to delivery', { n: 'delivered messages' }],
        t.histogram.map(
          (b) =>
            html`<tr data-bucket>
              <td>${b.label}</td>
              <td class="n">${num(b.count)}</td>
            </tr>`,
        ),
      )}
    </details>`;
}

function problemsSection(data: PageData): Markup {
  const codes = Object.entries(data.counts.byStatusCode)
    .filter(([code]) => code !== '0')
    .sort((a, b) => b[1].count - a[1].count || Number(a[0]) - Number(b[0]));
  const { failed, unknown, rejected } = data.counts.byOutcome;
  if (codes.length === 0 && failed + unknown + rejected === 0) {
    return html`<section id="problems">
      <h2>Rejections and failures</h2>
      <p>None.</p>
    </section>`;
  }
  const codeRows = codes.map(
    ([code, { count, description }]) =>
      html`<tr>
        <td class="n">${code}</td>
        <td>${data.statusDescriptions.get(code) ?? description}</td>
        <td class="n" data-code="${code}">${num(count)}</td>
      </tr>`,
  );
  const byCode = html`<h3>By StatusCode</h3>
    ${countsTable([{ n: 'StatusCode' }, 'description', { n: 'rows' }], codeRows)}
    <p class="muted">
      Failed (${num(failed)}) and unknown (${num(unknown)}) rows have no StatusCode: no answer from
      the gateway carried one.
    </p>`;
  const countryRows = data.byCountry.map(
    (c) =>
      html`<tr>
        <td>+${c.code}</td>
        <td class="n">${num(c.rejected)}</td>
        <td class="n">${num(c.failed)}</td>
        <td class="n">${num(c.unknown)}</td>
      </tr>`,
  );
  const bars = data.byCountry.slice(0, 12).map((c): Bar => ({
    key: 'rejected',
    label: `+${c.code}`,
    count: c.rejected + c.failed + c.unknown,
  }));
  const byCountry = html`<h3>By destination country (calling code)</h3>
    ${bothSizes((size) =>
      horizontalBars(
        'country-chart',
        'Rejected, failed and unknown rows by calling code',
        bars,
        size,
      ),
    )}
    ${countsTable(['calling code', { n: 'rejected' }, { n: 'failed' }, { n: 'unknown' }], countryRows)}`;
  return html`<section id="problems">
    <h2>Rejections and failures</h2>
    ${byCode}${byCountry}
  </section>`;
}

function segmentsSection(data: PageData): Markup {
  const { segments } = data;
  const entries = Object.entries(segments.byEncoding).sort((a, b) => a[0].localeCompare(b[0]));
  if (entries.length === 0)
    return html`<section id="segments">
      <h2>Segments and cost</h2>
      <p>
        ${
          segments.noneToSend
            ? 'No message was to be sent: every record was invalid or left out on purpose.'
            : 'The report has no segments column.'
        }
      </p>
    </section>`;
  const rows = entries.map(
    ([encoding, e]) =>
      html`<tr>
        <td>${encoding}</td>
        <td class="n">${num(e.messages)}</td>
        <td class="n">${num(e.segments)}</td>
        <td class="n">${num(e.acceptedSegments)}</td>
      </tr>`,
  );
  const cost =
    segments.cost === undefined || segments.pricing === undefined
      ? html`<p class="muted">
          No price per segment: the campaign was sent without one, and none was given (<code
            >--price-per-segment</code
          >
          and <code>--currency</code> on <code>report</code>, or <code>pricePerSegment</code> in the
          config file), so no cost is estimated.
        </p>`
      : html`<p>
            Estimated cost of the accepted messages:
            <strong
              >${num(segments.cost, 2)}${segments.currency === undefined ? '' : ` ${segments.currency}`}</strong
            >
          </p>
          <p class="muted">
            ${PRICE_SOURCES[segments.pricing.source]}:
            ${describePrices(segments.pricing.pricePerSegment, segments.currency)}.
          </p>`;
  const costly = data.costliest.map(
    (c) =>
      html`<tr>
        <td class="n">${num(c.row)}</td>
        <td>${c.to}</td>
        <td class="n">${num(c.segments)}</td>
        <td>${c.encoding}</td>
        ${c.cost === undefined ? undefined : html`<td class="n">${num(c.cost, moneyDecimals(c.cost))}</td>`}
      </tr>`,
  );
  const costlyTable =
    costly.length === 0
      ? undefined
      : html`<h3>Costliest messages</h3>
          <p class="muted">
            The messages that cost the most, one row each, costliest first. The report keeps no
            texts: look them up by row in the campaign's input.
          </p>
          <table class="rows">
            <thead>
              <tr>
                <th scope="col" class="n">row</th>
                <th scope="col">recipient</th>
                <th scope="col" class="n">segments</th>
                <th scope="col">encoding</th>
                ${segments.cost === undefined ? undefined : html`<th scope="col" class="n">cost</th>`}
              </tr>
            </thead>
            <tbody>
              ${costly}
            </tbody>
          </table>`;
  return html`<section id="segments">
    <h2>Segments and cost</h2>
    ${countsTable(['encoding', { n: 'messages' }, { n: 'segments' }, { n: 'segments accepted' }], rows)}
    ${cost}${costlyTable}
  </section>`;
}

const PRICE_SOURCES: Record<PriceSource, string> = {
  campaign: 'Priced as the campaign was sent',
  given: 'Priced with the prices given to this report',
  settings: 'Priced with the settings (the config file or environment)',
};

/** `0.35 NOK per segment to +47, 0.5 to other codes`. */
function describePrices(price: PricePerSegment, currency: string | undefined): Markup {
  const unit = currency === undefined ? '' : ` ${currency}`;
  if (typeof price === 'number') return html`${num(price, decimalsOf(price))}${unit} per segment`;
  const codes = Object.entries(price)
    .filter(([code]) => code !== 'default')
    .map(([code, p]) => html`${num(p, decimalsOf(p))}${unit} to +${code}`);
  const rest = price['default'];
  const other =
    rest === undefined ? [] : [html`${num(rest, decimalsOf(rest))}${unit} to other codes`];
  return html`per segment ${[...codes, ...other].map((m, i) => (i === 0 ? m : html`, ${m}`))}`;
}

/** Two decimals as money is written, more where a price per segment has them (0.035). */
function moneyDecimals(value: number): number {
  return Math.min(4, Math.max(2, decimalsOf(value)));
}

/** The decimals a price was written with, so 0.035 is not shown as 0.04. */
function decimalsOf(value: number): number {
  return (String(value).split('.')[1] ?? '').length;
}

function attentionSection(data: PageData, context: PageContext): Markup {
  const { rows, total } = data.attention;
  if (total === 0)
    return html`<section id="attention">
      <h2>Rows that need attention</h2>
      <p>None.</p>
    </section>`;
  const body = rows.map(
    (r) =>
      html`<tr>
        <td class="n">${num(r.row)}</td>
        <td>${r.to}</td>
        <td>
          ${r.outcome}${r.via === undefined ? '' : html` <span class="muted">(follow-up ${r.via})</span>`}
        </td>
        <td class="n">${r.statusCode}</td>
        <td>${r.description}</td>
        <td>${r.deliveryStatus}</td>
      </tr>`,
  );
  const more =
    total > rows.length
      ? html`<p>
          The first ${num(ATTENTION_LIMIT)} by row of ${num(total)}; the report holds them all.
        </p>`
      : total === 1
        ? html`<p>One row.</p>`
        : html`<p>All ${num(total)}, by row.</p>`;
  return html`<section id="attention">
    <h2>Rows that need attention</h2>
    ${more}${followUps(data, context)}
    ${wideTable(
      html`<table class="rows">
        <thead>
          <tr>
            <th scope="col" class="n">row</th>
            <th scope="col">recipient</th>
            <th scope="col">outcome</th>
            <th scope="col" class="n">StatusCode</th>
            <th scope="col">description</th>
            <th scope="col">delivery</th>
          </tr>
        </thead>
        <tbody>
          ${body}
        </tbody>
      </table>`,
    )}
  </section>`;
}

function followUps(data: PageData, context: PageContext): Markup {
  const c = data.campaign;
  if (!c)
    return html`<p class="muted">
      Follow-ups need the campaign's state: run <code>${context.program.name} retry</code> on the
      machine that sent it.
    </p>`;
  const where = whereFlags(c.target);
  const retry = (...args: string[]) => commandText(context.program, ['retry', ...args, ...where]);
  if (data.followUps?.uncertain) return html`${followUpList(data)}${unsureCommands(data, context)}`;
  const open = stillOpen(data);
  const lines: Array<[string, string]> = [];
  if (open.failedOrRejected > 0)
    lines.push([
      retry(c.id),
      'sends the failed and rejected records again, as a follow-up campaign',
    ]);
  if (open.unknown > 0)
    lines.push([
      retry(c.id, '--include', 'unknown'),
      'also the unknown ones: the gateway may have sent those already',
    ]);
  if (open.undelivered > 0)
    lines.push([
      retry(c.id, '--include', 'undelivered'),
      'also the accepted ones that were not delivered',
    ]);
  for (const f of data.followUps?.list ?? []) {
    if (f.open > 0)
      lines.push([
        retry(f.id),
        `sends again the ${f.open} records follow-up ${f.id} could not send`,
      ]);
    if (f.openUnknown > 0)
      lines.push([
        retry(f.id, '--include', 'unknown'),
        `also the ${f.openUnknown} it left unknown or that were unknown before it: the gateway ` +
          'may have sent those already, so they may arrive twice',
      ]);
  }
  return html`${followUpList(data)}${commandList(lines)}`;
}

/**
 * The flags that send a follow-up where the campaign went: `--simulate`, or its endpoint (one
 * that carried credentials is masked, so the settings must give it again).
 */
function whereFlags(target: string | undefined): string[] {
  if (target === undefined) return [];
  if (target === 'simulator') return ['--simulate'];
  return target.includes('@') ? [] : ['--endpoint', target];
}

function commandList(lines: ReadonlyArray<[command: string, what: string]>): Markup {
  if (lines.length === 0) return html``;
  const masked = lines.some(([command]) => command.includes('***@'));
  return html`<h3>Follow-up commands</h3>
    <ul class="commands">
      ${lines.map(([command, what]) => html`<li>${commandLine(command)} ${what}</li>`)}
    </ul>
    ${
      masked
        ? html`<p class="muted">
            A password in a URL is shown as ***: type it in again, or keep the URL in its
            environment variable (SMS_SEND_STATE_URL) or the config file, which the command then
            need not carry.
          </p>`
        : html``
    }`;
}

/**
 * A follow-up is unfinished, or its report cannot be read: which rows are open is not known here.
 * An unfinished one is finished first (retry refuses the rest until then); otherwise `retry` says.
 */
function unsureCommands(data: PageData, context: PageContext): Markup {
  const where = whereFlags(data.campaign?.target);
  const lines = (data.followUps?.list ?? [])
    .filter((f) => f.status !== 'finished')
    .map((f): [string, string] => [
      commandText(context.program, [
        'retry',
        f.of,
        ...(f.include.length > 0 ? ['--include', f.include.join(',')] : []),
        '--resume',
        ...where,
      ]),
      `finishes follow-up ${f.id}, which is ${f.status}`,
    ]);
  return html`<p class="muted">
      A follow-up is not finished or its report cannot be read, so which rows are still open is not
      known here: <code>${context.program.name} retry</code> says, and refuses what would send a
      record twice.
    </p>
    ${commandList(lines)}`;
}

/** What a retry of this campaign would still take: all of it, until a follow-up re-sent some. */
function stillOpen(data: PageData): {
  failedOrRejected: number;
  unknown: number;
  undelivered: number;
} {
  if (data.followUps) return data.followUps.notResent;
  const { byOutcome } = data.counts;
  return {
    failedOrRejected: byOutcome.failed + byOutcome.rejected,
    unknown: byOutcome.unknown,
    undelivered: data.funnel.undelivered + data.funnel.expired,
  };
}

/** The campaign's follow-ups, each named with what it settled. */
function followUpList(data: PageData): Markup {
  const followUps = data.followUps;
  if (!followUps) return html``;
  const items = followUps.list.map((f) => {
    const shown = OUTCOMES.filter((o) => (f.byOutcome?.[o] ?? 0) > 0).map(
      (o) => html`${num(f.byOutcome?.[o] ?? 0)} ${o}`,
    );
    const counts = f.byOutcome
      ? shown.flatMap((part, i) => (i === 0 ? [part] : [html`${', '}`, part]))
      : [html`its report cannot be read`];
    const of = f.of === data.campaign?.id ? '' : `, a follow-up of ${f.of}`;
    const include = f.include.length > 0 ? ` (with --include ${f.include.join(',')})` : '';
    return html`<li><code>${f.id}</code>${include}${of}, ${f.status}: ${counts}</li>`;
  });
  return html`<h3>Follow-ups</h3>
    <p>
      ${num(followUps.settled)} of this report's rows were re-sent and accepted by a follow-up: they
      are settled there and not listed below.
    </p>
    <ul class="follow-ups">
      ${items}
    </ul>`;
}

/**
 * A command line that breaks only between its words where the line is short (a phone's screen),
 * never after the `--` of a flag; a word longer than the line (a path) still breaks anywhere.
 */
function commandLine(command: string): Markup {
  // Masked whole before it is cut into words: a number written in groups is one number.
  const words = maskNumbers(command)
    .split(' ')
    .map((word) => html`<span class="word">${word}</span>`);
  return html`<code class="command"
    >${words.flatMap((word, i) => (i === 0 ? [word] : [html`${' '}`, word]))}</code
  >`;
}
