// Renders the end-of-run summary as a string; the command decides where it goes.
import type { ChalkInstance } from 'chalk';
import { OUTCOMES, type Outcome } from '../../message/outcome.js';
import { messagesOf, type RunSummary } from '../../report/summary.js';
import type { ReportElsewhere, ResumeCounts } from '../../campaign/types.js';
import { formatCount, formatDuration, formatRate, plural } from './format.js';
import { formatTable } from './table.js';

export interface SummaryContext {
  simulated: boolean;
  interrupted?: boolean;
  stoppedReason?: string;
  resumed?: ResumeCounts;
  /** The campaign's ID, for `sms-send campaigns show`. */
  campaign?: string;
  /** On resume, the earlier run's report when this run wrote the complete one elsewhere. */
  previousReport?: string;
  /** A finished campaign's report, written elsewhere: its host, and this host's partial file. */
  reportElsewhere?: ReportElsewhere;
}

export function renderSummary(summary: RunSummary, ctx: SummaryContext, c: ChalkInstance): string {
  const paint: Record<Outcome, (s: string) => string> = {
    accepted: c.green,
    rejected: c.red,
    invalid: c.yellow,
    failed: c.red,
    unknown: c.magenta,
    skipped: c.gray,
  };
  const lines: string[] = [];
  // Messages are the records that were to be sent: invalid ones, and those skipped by a
  // suppression list, --dedupe, --limit or a follow-up, never were.
  const messages = messagesOf(summary.total, summary.byOutcome, summary.notToSend);
  const accepted = `${formatCount(summary.byOutcome.accepted)} of ${plural(messages, 'message')} accepted`;
  const headline =
    summary.exitCode === 0 && !ctx.interrupted && !ctx.stoppedReason
      ? c.green.bold(`✔ ${accepted}`)
      : c.yellow.bold(`! ${accepted}`);
  lines.push(headline);
  // One count width for both lists, taken over every outcome, so the columns line up.
  const width = Math.max(...OUTCOMES.map((o) => formatCount(summary.byOutcome[o]).length));
  const shown = OUTCOMES.filter((o) => o === 'accepted' || summary.byOutcome[o] > 0);
  lines.push(
    ...formatTable(
      shown.map((o) => [o, formatCount(summary.byOutcome[o])]),
      {
        indent: '  ',
        gap: ' ',
        align: ['left', 'right'],
        minWidths: [9, width],
        paint: (cell, column, row) => (column === 0 ? paint[shown[row]!](cell) : cell),
      },
    ),
  );
  lines.push(...skippedLines(summary, c));
  const codes = Object.entries(summary.byStatusCode).sort((a, b) => Number(a[0]) - Number(b[0]));
  if (codes.length > 0) {
    lines.push(c.bold('  by StatusCode'));
    lines.push(
      ...formatTable(
        codes.map(([code, { count, description }]) => [
          code,
          formatCount(count),
          c.dim(description),
        ]),
        { indent: '    ', align: ['right', 'right'], minWidths: [4, width] },
      ),
    );
  }
  // A rate of nothing (a resume that found every record settled, a run the gateway never
  // answered) says nothing: the time alone.
  const rate = summary.messagesPerSecond > 0 ? `, ${formatRate(summary.messagesPerSecond)}` : '';
  lines.push(`  ${c.dim('time')}      ${formatDuration(summary.durationMs)}${rate}`);
  lines.push(...reportLines(summary, ctx, c));
  if (ctx.previousReport) {
    lines.push(
      `  ${c.dim('')}          (complete: every record of the campaign; the earlier run wrote ${ctx.previousReport})`,
    );
  }
  if (ctx.campaign) lines.push(`  ${c.dim('campaign')}  ${ctx.campaign}`);
  if (ctx.resumed) lines.push(`  ${c.dim('resumed')}   ${resumedText(ctx.resumed)}`);
  if (ctx.stoppedReason) lines.push(c.red(`  stopped early: ${ctx.stoppedReason}`));
  if (ctx.simulated) {
    lines.push(
      c.cyan('  Simulated run: the built-in simulator answered; nothing reached a real phone.'),
    );
  }
  return lines.join('\n');
}

/** Of the skipped records, those a suppression list or --skip-sent-by left out. */
function skippedLines(summary: RunSummary, c: ChalkInstance): string[] {
  const lines: string[] = [];
  if (summary.suppressed) {
    lines.push(c.dim(`  (${formatCount(summary.suppressed)} of the skipped: suppressed)`));
  }
  if (summary.sentBefore) {
    const n = formatCount(summary.sentBefore);
    lines.push(c.dim(`  (${n} of the skipped: sent before by the campaign --skip-sent-by names)`));
  }
  return lines;
}

/** The report, where it is when another host wrote it, and this host's file that is not it. */
function reportLines(summary: RunSummary, ctx: SummaryContext, c: ChalkInstance): string[] {
  const lines: string[] = [];
  const elsewhere = ctx.reportElsewhere;
  if (summary.reportPath) {
    const on = elsewhere?.host ? ` (on host ${elsewhere.host}, whose run finished it)` : '';
    lines.push(`  ${c.dim('report')}    ${summary.reportPath}${on}`);
  }
  if (elsewhere?.staleHere) {
    const stale = `this host's ${elsewhere.staleHere} is not the campaign's report`;
    lines.push(c.yellow(`  ${c.dim('')}          ${stale}`));
  }
  return lines;
}

/** What a resume found settled, and what it found it could not know. */
export function resumedText(resumed: ResumeCounts): string {
  const { fromJournal, fromReport, inFlight, unposted } = resumed;
  const parts: string[] = [];
  if (fromJournal > 0) {
    parts.push(
      `${plural(fromJournal, 'record')} settled by earlier runs ${fromJournal === 1 ? 'was' : 'were'} not sent again` +
        (fromReport > 0
          ? ` (${formatCount(fromReport)} of them taken from the report, where a run that could not write its journal kept them)`
          : ''),
    );
  }
  if (inFlight > 0) {
    parts.push(
      `${formatCount(inFlight)} sent without an answer ${inFlight === 1 ? 'is' : 'are'} unknown`,
    );
  }
  if (unposted > 0) {
    parts.push(
      `${formatCount(unposted)} recorded, not known to have left, ${unposted === 1 ? 'is' : 'are'} unknown`,
    );
  }
  return parts.length > 0 ? parts.join('; ') : 'no record was settled by an earlier run';
}

/**
 * The one line a --quiet run that did not end well prints: counts by outcome, problems first, then
 * the report, e.g. `300 unknown, 2,700 accepted of 3,000; report reports/x.csv`.
 */
export function renderQuietLine(summary: RunSummary): string {
  const problems = OUTCOMES.filter((o) => o !== 'accepted' && summary.byOutcome[o] > 0);
  const counts = [...problems, 'accepted' as const].map(
    (o) => `${formatCount(summary.byOutcome[o])} ${o}`,
  );
  return (
    `${counts.join(', ')} of ${formatCount(summary.total)}` +
    (summary.reportPath ? `; report ${summary.reportPath}` : '')
  );
}
