// Renders the dry-run plan and the list of invalid records as strings.
import type { ChalkInstance } from 'chalk';
import type { Plan } from '../../validate/plan.js';
import type { CostEstimate, NormalizeCounts, Ucs2Char } from '../../validate/types.js';
import { formatCount, formatMoney, plural } from './format.js';
import { formatTable } from './table.js';

/** The plan; with `left`, a --resume's: what is left of the valid records to send. */
export function renderPlan(plan: Plan, c: ChalkInstance, left?: number): string {
  const lines = [c.bold('Plan (dry run: nothing sent)')];
  lines.push(`  records     ${formatCount(plan.records)}`);
  lines.push(
    left === undefined
      ? `  to send     ${formatCount(plan.valid)}`
      : `  to send     ${formatCount(left)} of ${formatCount(plan.valid)} (--resume: the rest were settled by an earlier run)`,
  );
  if (plan.invalid > 0) lines.push(`  invalid     ${c.yellow(formatCount(plan.invalid))}`);
  const sentBy = Object.entries(plan.sentBy);
  const sentBefore = sentBy.reduce((sum, [, n]) => sum + n, 0);
  const skipped = plan.skipped - plan.suppressed - sentBefore;
  if (skipped > 0) lines.push(`  skipped     ${formatCount(skipped)} (--limit/--dedupe)`);
  if (plan.suppressed > 0) {
    const lists = Object.entries(plan.suppressedByList).map(
      ([list, n]) => `${list} ${formatCount(n)}`,
    );
    lines.push(`  suppressed  ${formatCount(plan.suppressed)} (${lists.join(', ')})`);
  }
  if (sentBefore > 0) {
    const by = sentBy.map(([id, n]) => `${formatCount(n)} by campaign ${id}`);
    lines.push(`  sent before ${formatCount(sentBefore)} (${by.join(', ')}: --skip-sent-by)`);
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
  const currency = plan.cost?.currency;
  if (plan.ucs2Chars.length > 0) lines.push(...renderUcs2(plan, currency));
  if (plan.normalized) {
    const n = plan.normalized;
    lines.push(
      `  normalized  ${plural(n.messages, 'record')} (${plural(n.characters, 'character')} replaced by --gsm-normalize): ` +
        `${plural(n.segmentsSaved, 'segment')} saved${money(n.costSaved, currency)}`,
    );
  }
  if (plan.normalizable) lines.push(renderNormalizable(plan.normalizable, currency, c));
  if (plan.cost) lines.push(...renderCost(plan.cost, c));
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

/** Characters listed, and rows listed for each, on a terminal; --json has more. */
const SHOWN_CHARS = 10;
const SHOWN_ROWS = 3;

/**
 * Each character that forced UCS-2: how many records, what they cost with it and without it, and
 * where it is (file:line and column).
 */
function renderUcs2(plan: Plan, currency: string | undefined): string[] {
  const lines = [`  UCS-2 forced by ${plural(plan.ucs2CharCount, 'character')}:`];
  // With --gsm-normalize on, a character still listed is in a text it could not make GSM-7.
  const hint = plan.normalized ? '' : ' (--gsm-normalize)';
  for (const u of plan.ucs2Chars.slice(0, SHOWN_CHARS)) {
    lines.push(
      `    ${u.char} in ${plural(u.messages, 'record')}: ${plural(u.segments, 'segment')}${money(u.cost, currency)}, ` +
        `${plural(u.segmentsWithout, 'segment')}${money(u.costWithout, currency)} ${instead(u, hint)}`,
    );
    const rows = u.rows.slice(0, SHOWN_ROWS).map((r) => `${r.file}:${r.line} (${r.field})`);
    lines.push(`      ${rows.join(', ')}${u.messages > rows.length ? ', …' : ''}`);
  }
  const more = plan.ucs2CharCount - Math.min(plan.ucs2Chars.length, SHOWN_CHARS);
  if (more > 0) lines.push(`    … and ${plural(more, 'more character')}`);
  return lines;
}

/** `with ' instead (--gsm-normalize)`, `with a space instead`, `without it`. */
function instead(u: Ucs2Char, hint: string): string {
  if (u.replacement === undefined) return 'without it';
  if (u.replacement === '') return `without it${hint}`;
  const shown =
    u.replacement === ' ' ? 'a space' : u.replacement === '\n' ? 'a line break' : u.replacement;
  return `with ${shown} instead${hint}`;
}

function renderNormalizable(
  n: NormalizeCounts,
  currency: string | undefined,
  c: ChalkInstance,
): string {
  return `  ${c.yellow(
    `--gsm-normalize would send ${plural(n.messages, 'record')} as GSM-7 (${plural(n.characters, 'character')} replaced): ` +
      `${plural(n.segmentsSaved, 'segment')} fewer${money(n.costSaved, currency)}`,
  )}`;
}

/** The estimate in total, against --max-cost, and by calling code. */
function renderCost(cost: CostEstimate, c: ChalkInstance): string[] {
  const total = formatMoney(cost.total, cost.currency);
  let limit = '';
  if (cost.maxCost !== undefined) {
    const max = formatMoney(cost.maxCost, cost.currency);
    limit =
      cost.total > cost.maxCost
        ? c.red(`, more than --max-cost ${max}`)
        : `, within --max-cost ${max}`;
  }
  return [
    `  cost        ${total} estimated${limit}`,
    ...formatTable(
      cost.byCallingCode.map((row) => [
        `+${row.callingCode}`,
        plural(row.messages, 'message'),
        plural(row.segments, 'segment'),
        `× ${formatMoney(row.pricePerSegment)}`,
        formatMoney(row.cost, cost.currency),
      ]),
      { indent: '    ', align: ['left', 'right', 'right', 'right', 'right'], minWidths: [6] },
    ),
  ];
}

/** ` (1.50 NOK)` when there is an amount. */
function money(amount: number | undefined, currency: string | undefined): string {
  return amount === undefined ? '' : ` (${formatMoney(amount, currency)})`;
}

/** A text on one line of the plan: line breaks shown as ⏎, long texts cut. */
function oneLine(text: string, max = 100): string {
  const chars = [...text.replace(/\r?\n/g, ' ⏎ ')];
  return chars.length > max ? `${chars.slice(0, max - 1).join('')}…` : chars.join('');
}
