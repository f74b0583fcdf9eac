// Renders the dry-run plan and the list of invalid records as strings.
import type { ChalkInstance } from 'chalk';
import type { Plan } from '../../message/plan.js';
import { formatCount, plural } from './format.js';
import { formatTable } from './table.js';

export function renderPlan(plan: Plan, c: ChalkInstance): string {
  const lines = [c.bold('Plan (dry run: nothing sent)')];
  lines.push(`  records     ${formatCount(plan.records)}`);
  lines.push(`  to send     ${formatCount(plan.valid)}`);
  if (plan.invalid > 0) lines.push(`  invalid     ${c.yellow(formatCount(plan.invalid))}`);
  const skipped = plan.skipped - plan.suppressed;
  if (skipped > 0) lines.push(`  skipped     ${formatCount(skipped)} (--limit/--dedupe)`);
  if (plan.suppressed > 0) {
    const lists = Object.entries(plan.suppressedByList).map(
      ([list, n]) => `${list} ${formatCount(n)}`,
    );
    lines.push(`  suppressed  ${formatCount(plan.suppressed)} (${lists.join(', ')})`);
  }
  lines.push(
    `  batches     ${formatCount(plan.batches)} (up to ${formatCount(plan.batchSize)} messages each)`,
  );
  lines.push(`  segments    ${formatCount(plan.segments)}`);
  const encodings = (['GSM-7', 'UCS-2'] as const).filter((e) => plan.messagesByEncoding[e] > 0);
  lines.push(
    ...formatTable(
      encodings.map((e) => [
        e,
        `${plural(plan.messagesByEncoding[e], 'message')}, ${plural(plan.segmentsByEncoding[e], 'segment')}`,
      ]),
      { indent: '    ', minWidths: [6] },
    ),
  );
  if (plan.ucs2Chars.length > 0) {
    const shown = plan.ucs2Chars.slice(0, 10).map((u) => `${u.char} ×${formatCount(u.messages)}`);
    lines.push(`  UCS-2 forced by ${shown.join(', ')}${plan.ucs2Chars.length > 10 ? ', …' : ''}`);
  }
  if (plan.premiumMessages > 0) {
    lines.push(
      `  premium     ${plural(plan.premiumMessages, 'message')}, ${formatCount(plan.premiumTotal)} øre in total`,
    );
  }
  if (plan.repeats !== undefined && plan.repeats > 0) {
    lines.push(
      `  repeats     ${c.yellow(plural(plan.repeats, 'record'))} repeat${plan.repeats === 1 ? 's' : ''} an earlier recipient and text; --dedupe skips them`,
    );
  }
  if (plan.samples.length > 0) {
    lines.push(`  first ${plural(plan.samples.length, 'text')}`);
    lines.push(
      ...formatTable(
        plan.samples.map((s) => [s.to, oneLine(s.text)]),
        { indent: '    ', paint: (cell, column) => (column === 0 ? c.dim(cell) : cell) },
      ),
    );
  }
  return lines.join('\n');
}

/** A text on one line of the plan: line breaks shown as ⏎, long texts cut. */
function oneLine(text: string, max = 100): string {
  const chars = [...text.replace(/\r?\n/g, ' ⏎ ')];
  return chars.length > max ? `${chars.slice(0, max - 1).join('')}…` : chars.join('');
}

/** The exit-2 explanation: file problems first, then records with file:line, then counts. */
export function renderInvalid(plan: Plan, skipInvalidHint: boolean): string {
  const lines: string[] = [];
  for (const problem of plan.fileProblems) lines.push(`${problem.file}: ${problem.message}`);
  if (plan.invalid > 0) {
    lines.push(`${plural(plan.invalid, 'record')} of ${formatCount(plan.records)} cannot be sent:`);
    for (const record of plan.invalidRecords) {
      for (const problem of record.problems) {
        lines.push(`  ${record.file}:${record.line}: ${problem.field}: ${problem.reason}`);
      }
    }
    if (plan.invalid > plan.invalidRecords.length) {
      lines.push(`  … and ${plural(plan.invalid - plan.invalidRecords.length, 'more record')}`);
    }
    const byField = Object.entries(plan.invalidByField).sort((a, b) => b[1] - a[1]);
    lines.push(`by field: ${byField.map(([field, n]) => `${field} ${formatCount(n)}`).join(', ')}`);
  }
  lines.push(
    'Nothing was sent.' +
      (skipInvalidHint && plan.fileProblems.length === 0
        ? ' Fix the input, or pass --skip-invalid to send the valid records and report the rest as invalid.'
        : ''),
  );
  return lines.join('\n');
}
