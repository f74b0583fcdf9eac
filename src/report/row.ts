// The report's columns and how one result becomes one row of them.
import type { RowResult } from '../message/outcome.js';
import { decimal } from '../shared/digits.js';

/** The columns of every report, in order (docs/report.md#columns). */
export const REPORT_COLUMNS = [
  'row',
  'to',
  'messageId',
  'outcome',
  'statusCode',
  'statusDescription',
  'transactionId',
  'extraInfo',
  'attempts',
  'error',
  'segments',
  'encoding',
] as const;

export type ReportColumn = (typeof REPORT_COLUMNS)[number] | 'normalized' | 'originalMessageId';

/**
 * The columns a run writes: the fixed ones, then `normalized` with --gsm-normalize, then
 * `originalMessageId` in a follow-up campaign (`sms-send retry`), the MessageId its row re-sends.
 */
export function reportColumns(options: {
  normalized: boolean;
  followUp?: boolean;
}): readonly ReportColumn[] {
  const columns: ReportColumn[] = [...REPORT_COLUMNS];
  if (options.normalized) columns.push('normalized');
  if (options.followUp) columns.push('originalMessageId');
  return columns;
}

/**
 * A lone surrogate becomes U+FFFD. JSON.stringify writes one as `\ud800`, which JSON.parse accepts
 * but strict readers (jq, I-JSON, RFC 8259 §8.2) refuse, so one bad input value would make the
 * whole report unreadable; the CSV report gets U+FFFD from UTF-8 encoding.
 */
export function wellFormed(text: string): string {
  return LONE_SURROGATE.test(text) ? text.replace(LONE_SURROGATES, '\uFFFD') : text;
}
const LONE_SURROGATE = /\p{Cs}/u;
const LONE_SURROGATES = /\p{Cs}/gu;

/** JSON.stringify for a report row read back and rewritten: every string value made well-formed. */
export function stringifyWellFormed(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) =>
    typeof item === 'string' ? wellFormed(item) : item,
  );
}

/** A row as json/ndjson reports carry it: absent values are omitted, extraInfo stays an object. */
export function toJsonRow(
  result: RowResult,
  columns: readonly ReportColumn[] = REPORT_COLUMNS,
): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  for (const column of columns) {
    const value = result[column];
    if (value === undefined) continue;
    if (typeof value === 'string') row[column] = wellFormed(value);
    else if (typeof value === 'object') {
      row[column] = Object.fromEntries(
        Object.entries(value).map(([k, v]) => [wellFormed(k), wellFormed(v)]),
      );
    } else row[column] = value;
  }
  return row;
}

/**
 * A row as CSV carries it: every column present, extraInfo as `key=value; key=value`. Formula
 * escapes are the CSV layout's business (format.ts).
 */
export function toCsvCells(
  result: RowResult,
  columns: readonly ReportColumn[] = REPORT_COLUMNS,
): string[] {
  return columns.map((column) => {
    const value = result[column];
    if (value === undefined) return '';
    if (typeof value === 'object') return formatExtraInfo(value);
    return typeof value === 'number' ? decimal(value) : value;
  });
}

export function formatExtraInfo(info: Record<string, string>): string {
  // A loop rather than entries().map().join(): a report has a row per record, and the arrays
  // the chain makes showed in its profile (docs/benchmark.md).
  let text = '';
  let first = true;
  for (const key in info) {
    if (!Object.hasOwn(info, key)) continue;
    text += first ? `${key}=${info[key]}` : `; ${key}=${info[key]}`;
    first = false;
  }
  return text;
}
