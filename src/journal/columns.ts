// A batch in the journal: its rows as ranges, its results as columns of runs (docs/architecture.md#the-journal-format).
import type { Outcome, RowResult } from '../message/outcome.js';
import { decimal } from '../shared/digits.js';

/** A value of one field of one result; null is "absent". */
export type Scalar = string | number | null;

/**
 * `count` results in a row with the same value, or with a text ending in a decimal that counts up
 * by one from `first` (padded with zeros to `width` digits): the gateway's TransactionIds and
 * references usually do, so a batch of accepted messages takes a few dozen bytes, not a line each.
 */
export type Run =
  [count: number, value: Scalar] | [count: number, prefix: string, first: number, width: number];

/** Rows in ascending order as [first, last, first, last, …], each pair an inclusive range. */
export type Ranges = number[];

/** A batch's results, one column per field of RowResult the journal keeps. */
export interface ResultColumns {
  /** The batch's rows. */
  r: Ranges;
  o: Run[];
  a: Run[];
  c?: Run[];
  d?: Run[];
  i?: Run[];
  /** ExtraInfo, a column per key; a result without the key has null there. */
  x?: Record<string, Run[]>;
  e?: Run[];
}

/** A result as the journal gives it back (the row's number and MessageId are the input's). */
export type SettledResult = Omit<RowResult, 'to' | 'messageId'>;

/** Ranges of ascending, distinct rows. */
export function rangesOf(rows: readonly number[]): Ranges {
  const ranges: Ranges = [];
  for (const row of rows) {
    const last = ranges.length - 1;
    if (last > 0 && ranges[last] === row - 1) ranges[last] = row;
    else ranges.push(row, row);
  }
  return ranges;
}

export function* rowsOf(ranges: Ranges): Generator<number> {
  for (let k = 0; k + 1 < ranges.length; k += 2) {
    for (let row = ranges[k]!; row <= ranges[k + 1]!; row++) yield row;
  }
}

/** The row's position among the ranges' rows, or -1. */
export function indexIn(ranges: Ranges, row: number): number {
  let before = 0;
  for (let k = 0; k + 1 < ranges.length; k += 2) {
    const first = ranges[k]!;
    const last = ranges[k + 1]!;
    if (row >= first && row <= last) return before + row - first;
    before += last - first + 1;
  }
  return -1;
}

/** Counting digits at the end of a text: at most 15, so every count stays an exact number. */
const COUNTER = /\d{1,15}$/;

/** decimal(), not String(): a counter's texts are one per record (see shared/digits.ts). */
function counted(prefix: string, first: number, width: number, k: number): string {
  return prefix + decimal(first + k).padStart(width, '0');
}

export function encodeColumn(values: readonly Scalar[]): Run[] {
  const runs: Run[] = [];
  for (let i = 0; i < values.length;) {
    const value = values[i]!;
    let same = i + 1;
    while (same < values.length && values[same] === value) same++;
    const digits = typeof value === 'string' ? COUNTER.exec(value) : null;
    if (digits) {
      const prefix = (value as string).slice(0, digits.index);
      const first = Number(digits[0]);
      const width = digits[0].length;
      let upTo = i + 1;
      while (upTo < values.length && values[upTo] === counted(prefix, first, width, upTo - i)) {
        upTo++;
      }
      if (upTo > same) {
        runs.push([upTo - i, prefix, first, width]);
        i = upTo;
        continue;
      }
    }
    runs.push([same - i, value]);
    i = same;
  }
  return runs;
}

export function valueAt(runs: readonly Run[] | undefined, index: number): Scalar {
  if (runs === undefined) return null;
  let k = index;
  for (const run of runs) {
    if (k < run[0]) return run.length === 2 ? run[1] : counted(run[1], run[2], run[3], k);
    k -= run[0];
  }
  return null;
}

/** A column that is null throughout is left out of the line. */
function column(values: readonly Scalar[]): Run[] | undefined {
  return values.every((v) => v === null) ? undefined : encodeColumn(values);
}

/** A batch's results as columns; rows are sorted, and a row given twice keeps its last result. */
export function encodeResults(results: readonly SettledResult[]): ResultColumns {
  const byRow = new Map<number, SettledResult>();
  for (const result of results) byRow.set(result.row, result);
  const sorted = [...byRow.values()].sort((p, q) => p.row - q.row);
  const keys = new Set<string>();
  for (const r of sorted) for (const key of Object.keys(r.extraInfo ?? {})) keys.add(key);
  const columns: ResultColumns = {
    r: rangesOf(sorted.map((r) => r.row)),
    o: encodeColumn(sorted.map((r) => r.outcome)),
    a: encodeColumn(sorted.map((r) => r.attempts)),
  };
  const fields = {
    c: column(sorted.map((r) => r.statusCode ?? null)),
    d: column(sorted.map((r) => r.statusDescription ?? null)),
    i: column(sorted.map((r) => r.transactionId ?? null)),
    e: column(sorted.map((r) => r.error ?? null)),
  };
  for (const [key, runs] of Object.entries(fields)) {
    if (runs) columns[key as 'c' | 'd' | 'i' | 'e'] = runs;
  }
  if (keys.size > 0) {
    columns.x = Object.fromEntries(
      [...keys].map((key) => [key, encodeColumn(sorted.map((r) => r.extraInfo?.[key] ?? null))]),
    );
  }
  return columns;
}

/** The outcome of the row at `index` of the batch. */
export function outcomeAt(columns: ResultColumns, index: number): Outcome {
  return valueAt(columns.o, index) as Outcome;
}

/** The result of the row at `index` of the batch; fields that are null are absent. */
export function resultAt(columns: ResultColumns, row: number, index: number): SettledResult {
  const result: SettledResult = {
    row,
    outcome: outcomeAt(columns, index),
    attempts: valueAt(columns.a, index) as number,
  };
  const statusCode = valueAt(columns.c, index);
  if (statusCode !== null) result.statusCode = statusCode as number;
  const description = valueAt(columns.d, index);
  if (description !== null) result.statusDescription = String(description);
  const transactionId = valueAt(columns.i, index);
  if (transactionId !== null) result.transactionId = String(transactionId);
  if (columns.x) {
    const extra: Record<string, string> = {};
    let any = false;
    for (const [key, runs] of Object.entries(columns.x)) {
      const value = valueAt(runs, index);
      if (value !== null) {
        extra[key] = String(value);
        any = true;
      }
    }
    if (any) result.extraInfo = extra;
  }
  const error = valueAt(columns.e, index);
  if (error !== null) result.error = String(error);
  return result;
}
