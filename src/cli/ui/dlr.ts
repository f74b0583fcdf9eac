// Renders the delivery-report commands' output as strings, and the receiver's live count on stderr.
import { commandText } from '../../shared/shell.js';
import type { ChalkInstance } from 'chalk';
import type { FoldResult, LogCounts } from '../../dlr/apply.js';
import type { DeliveryReport } from '../../dlr/matching.js';
import { REFUSALS, type ProofRefusal } from '../../dlr/proof.js';
import type { DlrReceiver, MalformedRequest, ReceiverCounts } from '../../dlr/receiver.js';
import type { ReceiverSummary } from '../../campaign/deliveries.js';
import type { ReportWritten } from '../../campaign/report-output.js';
import type { ReportCounts } from '../../report/read.js';
import { OUTCOMES } from '../../message/outcome.js';
import { formatCount, plural } from './format.js';
import { startLiveLine, type StatusStream } from './spinner.js';
import { formatTable } from './table.js';

/** Statuses by count, most frequent first (ties by name, so output is stable). */
function byCount(counts: Record<string, number>): Array<[string, number]> {
  return Object.entries(counts).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
}

/** Label, right-aligned count and an optional note: the shape of every count list here. */
function table(
  rows: Array<[label: string, count: number, note?: string]>,
  indent = '  ',
): string[] {
  return formatTable(
    rows.map(([label, count, note]) =>
      note ? [label, formatCount(count), note] : [label, formatCount(count)],
    ),
    { indent, align: ['left', 'right'] },
  );
}

export interface ReceiverInfo {
  url: string;
  template: string;
  /** GET answers 200 while the receiver is up. */
  healthUrl: string;
  /** None: the reports are kept in the store alone (`keptIn`). */
  reportPath: string | undefined;
  /** Where the reports are kept for every host, when the store keeps them. */
  keptIn: string | undefined;
  logPath: string;
  host: string;
  reportExists: boolean;
  /** How the user runs sms-send (`sms-send`, `npx sms-send`): the printed commands say it so. */
  program: string;
}

/** What `sms-send dlr` says on start (stderr); the template alone goes to stdout. */
export function renderReceiverStart(info: ReceiverInfo, c: ChalkInstance): string {
  const report = info.reportPath;
  const lines = [
    `${c.green('receiving delivery reports')} on ${info.url} (any path; GET query, POST JSON or form)`,
    ...(report === undefined
      ? []
      : [
          `  report  ${report}${info.reportExists ? '' : c.yellow(' (does not exist yet: updated once it does)')}`,
        ]),
    ...(info.keptIn === undefined ? [] : [`  kept in ${info.keptIn}, for every host to read`]),
    `  log     ${info.logPath}`,
    // Not a whole command: the input, the endpoint and the credentials are the send's own.
    report === undefined
      ? `  on your sends, add: --dlr-url '${info.template}' (with the same state URL)`
      : `  on your send, add: --report ${report} --dlr-url '${info.template}'`,
    '  only reports carrying the proof sms-send put in their DeliveryReportUrl are taken',
    `  health  GET ${info.healthUrl} answers 200 while it is up`,
  ];
  if (info.host === '0.0.0.0' || info.host === '::') {
    lines.push(
      c.yellow(
        `  listening on every interface: give the gateway an address it can reach instead of ${info.host}`,
      ),
    );
  }
  lines.push(
    report === undefined
      ? '  Ctrl-C stops it (every report acknowledged is kept).'
      : '  Ctrl-C stops it (the report is updated one last time).',
  );
  return lines.join('\n');
}

/** The receiver's running count, for the spinner. */
export function renderReceiverLine(counts: ReceiverCounts, fold: FoldResult | undefined): string {
  const parts = [plural(counts.received, 'delivery report')];
  const statuses = byCount(counts.byStatus).map(([status, n]) => `${status} ${formatCount(n)}`);
  if (counts.withoutStatus > 0) statuses.push(`no status ${formatCount(counts.withoutStatus)}`);
  if (statuses.length > 0) parts.push(statuses.join(' · '));
  if (counts.malformed > 0) parts.push(`malformed ${formatCount(counts.malformed)}`);
  const refused = totalRefused(counts.refused);
  if (refused > 0) parts.push(`refused ${formatCount(refused)}`);
  if (fold) parts.push(`report: ${describeFold(fold)}`);
  return parts.join('  ');
}

function describeFold(fold: FoldResult): string {
  if (fold.kind === 'updated') {
    return (
      `${formatCount(fold.matched)} matched` +
      (fold.unmatched > 0 ? `, ${formatCount(fold.unmatched)} not in it (yet)` : '')
    );
  }
  switch (fold.reason) {
    case 'missing':
      return 'waiting for it to exist';
    case 'locked':
      return 'waiting for the sending run to end';
    case 'error':
      return `cannot update: ${fold.message}`;
  }
}

/** One line per report received, for --verbose. */
export function renderReportLine(report: DeliveryReport, c: ChalkInstance): string {
  return (
    `${c.bold(report.status ?? '(no status)')}  ${report.messageId}` +
    (report.timestamp === undefined ? '' : c.dim(`  ${report.timestamp}`))
  );
}

export function renderRefusedLine(
  report: DeliveryReport,
  reason: ProofRefusal,
  c: ChalkInstance,
): string {
  return c.yellow(`refused (${reason})  ${report.messageId}  ${report.status ?? '(no status)'}`);
}

function totalRefused(refused: Record<ProofRefusal, number>): number {
  return REFUSALS.reduce((sum, reason) => sum + refused[reason], 0);
}

/** Rows for each refusal reason that happened: answered 200, changed nothing. */
function refusedRows(
  refused: Record<ProofRefusal, number>,
  c: ChalkInstance,
): Array<[string, number, string?]> {
  const notes: Record<ProofRefusal, string> = {
    unsigned: 'no proof',
    'bad signature': 'a proof sms-send did not make',
    'unknown id': "not a message of this report's campaign",
    'bad status': 'a status that does not parse',
  };
  return REFUSALS.filter((reason) => refused[reason] > 0).map((reason) => [
    reason,
    refused[reason],
    c.dim(`refused (${notes[reason]}): changed nothing`),
  ]);
}

export function renderMalformedLine(request: MalformedRequest, c: ChalkInstance): string {
  return c.yellow(`${request.httpStatus} ${request.method} ${request.path}: ${request.reason}`);
}

/** A note when the fold's state changes; undefined when there is nothing new to say. */
export function renderFoldNote(
  fold: FoldResult,
  previous: FoldResult | undefined,
  verbose: boolean,
  c: ChalkInstance,
): string | undefined {
  const key = (f: FoldResult | undefined) =>
    f === undefined ? '' : f.kind === 'updated' ? 'updated' : `${f.reason}:${f.message}`;
  if (fold.kind === 'updated') {
    if (!fold.written && !verbose) return undefined;
    if (!verbose && key(previous) === 'updated') return undefined;
    return c.green(
      `report updated: ${plural(fold.changedRows, 'row')} changed, ${formatCount(fold.matched)} message ids matched` +
        (fold.unmatched > 0 ? `, ${formatCount(fold.unmatched)} not in the report (yet)` : '') +
        (fold.confirmed > 0 ? `, ${confirmedNote(fold.confirmed)}` : ''),
    );
  }
  if (key(fold) === key(previous)) return undefined;
  switch (fold.reason) {
    case 'missing':
      return c.yellow(`waiting for the report: ${fold.message}`);
    case 'locked':
      return c.yellow('a sending run holds the report; it is updated once the run ends');
    case 'error':
      return c.red(`cannot update the report: ${fold.message}`);
  }
}

export interface ReceiverProgress {
  stop(): void;
}

/**
 * The live count: a spinner on a terminal that can show one; otherwise a line per report with
 * --verbose, and a note whenever the report's state changes.
 */
export function showReceiverProgress(
  receiver: DlrReceiver,
  options: { verbose: boolean },
  c: ChalkInstance,
  stream: StatusStream = process.stderr,
): ReceiverProgress {
  const live = startLiveLine(renderReceiverLine(receiver.counts, undefined), stream);
  let previous: FoldResult | undefined;
  const update = () => live.update(renderReceiverLine(receiver.counts, receiver.lastFold));
  receiver.on('report', (report) => {
    if (options.verbose) live.say(renderReportLine(report, c));
    update();
  });
  receiver.on('refused', (report, reason) => {
    if (options.verbose) live.say(renderRefusedLine(report, reason, c));
    update();
  });
  receiver.on('malformed', (request) => {
    if (options.verbose) live.say(renderMalformedLine(request, c));
    update();
  });
  receiver.on('fold', (fold) => {
    const note = renderFoldNote(fold, previous, options.verbose, c);
    previous = fold;
    if (note !== undefined) live.say(note);
    update();
  });
  receiver.on('keepFailed', (error) =>
    live.say(
      c.red(
        `cannot keep a report in the state database (answered 500 so the gateway sends it again): ${error.message}`,
      ),
    ),
  );
  receiver.on('logFailed', (error) =>
    live.say(
      c.red(`cannot write the log (answered 500 so the gateway sends it again): ${error.message}`),
    ),
  );
  return {
    stop: () => live.stop(renderReceiverLine(receiver.counts, receiver.lastFold)),
  };
}

/** `2 unknown rows confirmed accepted by their delivery report` */
function confirmedNote(rows: number): string {
  return `${plural(rows, 'unknown row')} confirmed accepted by their delivery report`;
}

/** What `sms-send dlr` prints when it stops (stdout). */
export function renderReceiverSummary(summary: ReceiverSummary, c: ChalkInstance): string {
  const { counts, fold } = summary;
  const ok = fold === undefined || fold.kind === 'updated';
  const lines = [
    (ok ? c.green.bold('✔ ') : c.yellow.bold('! ')) +
      c.bold(`${plural(counts.received, 'delivery report')} received`),
  ];
  const rows: Array<[string, number, string?]> = byCount(counts.byStatus);
  if (counts.withoutStatus > 0) rows.push(['(no status)', counts.withoutStatus]);
  if (counts.malformed > 0)
    rows.push(['malformed', counts.malformed, c.dim('answered 4xx, logged')]);
  rows.push(...refusedRows(counts.refused, c));
  if (counts.notLogged > 0) {
    rows.push([
      'not logged',
      counts.notLogged,
      c.dim('refused or malformed past the first of each kind'),
    ]);
  }
  lines.push(...table(rows));
  if (summary.keptIn !== undefined) lines.push(`  ${c.dim('kept in')} ${summary.keptIn}`);
  const report = summary.reportPath;
  if (report === undefined) {
    // Nothing to fold into: every report taken is in the store.
  } else if (fold === undefined) {
    lines.push(`  ${c.dim('report')}  ${report}: nothing to record`);
  } else if (fold.kind === 'updated') {
    lines.push(
      `  ${c.dim('report')}  ${report}: ${formatCount(fold.matched)} message ids matched` +
        (fold.unmatched > 0
          ? `; ${formatCount(fold.unmatched)} not in the report (kept in the log), e.g. ${fold.unmatchedSample.join(', ')}`
          : '') +
        (summary.confirmed ? `; ${confirmedNote(summary.confirmed)}` : ''),
    );
  } else {
    lines.push(...deferredLines(summary, report, fold, c));
  }
  lines.push(`  ${c.dim('log')}     ${summary.logPath}`);
  return lines.join('\n');
}

/**
 * The report the last fold could not update, and how to fold the log in later. While another run
 * holds the report, its reports wait in the log for that run to end: the receiver's own account.
 */
function deferredLines(
  summary: ReceiverSummary,
  report: string,
  fold: Extract<FoldResult, { kind: 'deferred' }>,
  c: ChalkInstance,
): string[] {
  const apply = commandText(summary.program, [
    'dlr',
    'apply',
    '--report',
    report,
    '--from',
    summary.logPath,
  ]);
  if (fold.reason !== 'locked') {
    return [
      c.yellow(`  report  ${report} not updated: ${fold.message}`),
      `  fold the log in later: ${apply}`,
    ];
  }
  return [
    c.yellow(
      `  report  ${report} not updated: ${fold.message}; the receiver cannot fold into it while that run holds it`,
    ),
    `  the delivery reports received are kept in ${summary.logPath}`,
    `  once that run has ended, fold them in: ${apply}`,
  ];
}

/** What `sms-send dlr apply` prints (stdout). */
export function renderApply(
  log: LogCounts,
  fold: Extract<FoldResult, { kind: 'updated' }>,
  paths: { reportPath: string; logPath: string },
  c: ChalkInstance,
): string {
  const head =
    fold.unmatched === 0
      ? c.green.bold(`✔ ${plural(log.reports, 'delivery report')} folded into ${paths.reportPath}`)
      : c.yellow.bold(
          `! ${plural(log.reports, 'delivery report')} folded into ${paths.reportPath}`,
        );
  const rows: Array<[string, number, string?]> = [
    ['matched', fold.matched, `message ids (${plural(fold.changedRows, 'row')} changed)`],
  ];
  if (fold.confirmed > 0) {
    rows.push([
      'confirmed',
      fold.confirmed,
      'unknown rows now accepted: a delivery report proves the gateway took them',
    ]);
  }
  if (fold.unmatched > 0) {
    rows.push([
      'unmatched',
      fold.unmatched,
      `message ids not in the report, e.g. ${fold.unmatchedSample.join(', ')}`,
    ]);
  }
  if (log.withoutStatus > 0)
    rows.push(['no status', log.withoutStatus, 'reports, nothing to record']);
  rows.push(...refusedRows(log.refused, c));
  if (log.malformed > 0) {
    rows.push([
      'malformed',
      log.malformed,
      `log lines skipped (line ${log.malformedLines.join(', ')}${log.malformed > log.malformedLines.length ? ', …' : ''})`,
    ]);
  }
  return [head, ...table(rows)].join('\n');
}

/** What `sms-send report` prints. */
export function renderReportCounts(counts: ReportCounts, c: ChalkInstance): string {
  const lines = [c.bold(`${counts.path}: ${plural(counts.total, 'row')}`)];
  const outcomes: Array<[string, number, string?]> = OUTCOMES.filter(
    (o) => counts.byOutcome[o] > 0,
  ).map((o) => [o, counts.byOutcome[o]]);
  if (counts.otherOutcome > 0)
    outcomes.push(['other', counts.otherOutcome, 'rows with no known outcome']);
  if (counts.unreadable > 0)
    outcomes.push(['unreadable', counts.unreadable, 'lines that are not rows']);
  lines.push(...table(outcomes));
  const codes = Object.entries(counts.byStatusCode).sort((a, b) => Number(a[0]) - Number(b[0]));
  if (codes.length > 0) {
    lines.push(c.bold('  by StatusCode'));
    lines.push(
      ...table(
        codes.map(([code, { count, description }]) => [code, count, c.dim(description)]),
        '    ',
      ),
    );
  }
  const deliveries: Array<[string, number, string?]> = byCount(counts.byDeliveryStatus);
  if (deliveries.length > 0 || counts.awaitingDeliveryReport > 0) {
    lines.push(c.bold('  by delivery status'));
    if (counts.awaitingDeliveryReport > 0) {
      deliveries.push([
        '(none yet)',
        counts.awaitingDeliveryReport,
        c.dim('accepted, no delivery report'),
      ]);
    }
    lines.push(...table(deliveries, '    '));
  }
  return lines.join('\n');
}

/** `report ID --output`: what was written, and from where (stderr). */
export function renderReportWritten(written: ReportWritten): string {
  const from =
    written.host === undefined ? written.from : `${written.from} on host ${written.host}`;
  const when = written.keptAt === undefined ? '' : `, as its run ended at ${written.keptAt}`;
  const deliveries =
    written.deliveries > 0
      ? `; the delivery reports of ${plural(written.deliveries, 'message')} folded in`
      : '';
  return `report written: ${written.output} (campaign ${written.campaign}'s report, ${from}${when}${deliveries})`;
}
