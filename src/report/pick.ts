// The rows of a report whose row numbers are wanted, read as readReport reads them but without
// parsing the others: a resume asks for the few hundred rows a killed run left in flight, out of
// millions (docs/campaign-state.md#when-the-disk-fails).
import type { Options } from 'csv-parse';
import { parse } from 'csv-parse/sync';
import { lineBlocks, eachLine } from '../shared/files.js';
import { readableFormat, unescapeFormula } from './format.js';
import { openReportForReading, readReport } from './read.js';

/** A report row's values, as readReport gives them. */
export type RowValues = Record<string, unknown>;

/** Lines a CSV row may span (a description with line breaks in it) before it is given up on. */
const MAX_ROW_LINES = 64;

/**
 * The wanted rows of a report, in file order. A CSV whose first column is `row` and an NDJSON
 * report are scanned line by line, a line parsed only when it starts with a wanted row; a line
 * cut short at the end of the file (a crash mid-write) is left out. Anything else is read whole.
 */
export async function* pickRows(
  path: string,
  wanted: (row: number) => boolean,
): AsyncGenerator<RowValues> {
  const format = readableFormat(path);
  if (format === 'json') {
    for await (const entry of readReport(path)) {
      if (entry.kind === 'row' && wanted(Number(entry.values['row']))) yield entry.values;
    }
    return;
  }
  const source = await openReportForReading(path);
  try {
    const picker = format === 'csv' ? new CsvPicker(wanted) : new NdjsonPicker(wanted);
    for await (const block of lineBlocks(source)) {
      const complete = block.at(-1) === 10;
      const picked: RowValues[] = [];
      eachLine(block, (start, end) => {
        // The file's last line without its newline was cut by a crash: no row to trust.
        if (!complete && end === block.length) return;
        const row = picker.line(block, start, end);
        if (row) picked.push(row);
      });
      yield* picked;
      if (picker.fallback) break;
    }
    if (picker.fallback) {
      for await (const entry of readReport(path)) {
        if (entry.kind === 'row' && wanted(Number(entry.values['row']))) yield entry.values;
      }
    }
  } finally {
    await source.close();
  }
}

/** The row number a line starts with (`123,…` or `{"row":123,…`), or -1. */
function leadingRow(block: Buffer, start: number, end: number): number {
  let n = 0;
  let i = start;
  for (; i < end && i - start < 16; i++) {
    const c = block[i]!;
    if (c < 48 || c > 57) break;
    n = n * 10 + (c - 48);
  }
  return i > start && i < end && block[i] === 44 ? n : -1;
}

const NDJSON_ROW = Buffer.from('{"row":');

class NdjsonPicker {
  readonly fallback = false;
  constructor(private readonly wanted: (row: number) => boolean) {}

  line(block: Buffer, start: number, end: number): RowValues | undefined {
    const prefixed = block.subarray(start, start + NDJSON_ROW.length).equals(NDJSON_ROW);
    const row = prefixed ? leadingRow(block, start + NDJSON_ROW.length, end) : -1;
    if (row !== -1 && !this.wanted(row)) return undefined;
    let value: unknown;
    try {
      value = JSON.parse(block.toString('utf8', start, end));
    } catch {
      return undefined;
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
    const values = value as RowValues;
    return this.wanted(Number(values['row'])) ? values : undefined;
  }
}

class CsvPicker {
  /** The header does not start with `row`: the file is read whole instead. */
  fallback = false;
  private header: string[] | undefined;
  /** A wanted row whose quoted cell went on past its first line, and the lines it took so far. */
  private pending: { text: string; lines: number } | undefined;

  constructor(private readonly wanted: (row: number) => boolean) {}

  line(block: Buffer, start: number, end: number): RowValues | undefined {
    if (!this.header) {
      this.header = cellsOf(block.toString('utf8', start, end).replace(/^\uFEFF/, ''));
      this.fallback = this.header?.[0] !== 'row';
      return undefined;
    }
    if (this.fallback) return undefined;
    if (this.pending) return this.more(block.toString('utf8', start, end));
    const row = leadingRow(block, start, end);
    if (row === -1 || !this.wanted(row)) return undefined;
    return this.complete(block.toString('utf8', start, end), 1);
  }

  private more(text: string): RowValues | undefined {
    const { text: before, lines } = this.pending!;
    this.pending = undefined;
    return this.complete(`${before}\n${text}`, lines + 1);
  }

  private complete(text: string, lines: number): RowValues | undefined {
    const cells = cellsOf(text);
    if (cells === undefined) {
      if (lines < MAX_ROW_LINES) this.pending = { text, lines };
      return undefined;
    }
    const header = this.header!;
    return Object.fromEntries(header.map((name, i) => [name, unescapeFormula(cells[i] ?? '')]));
  }
}

/** As readReport's CSV reader parses: rows may have fewer or more cells than the header. */
const ONE_RECORD: Options = { relax_column_count: true };

/** The cells of one CSV record, or undefined when its text is not one whole record yet. */
function cellsOf(text: string): string[] | undefined {
  try {
    const records = parse(text, ONE_RECORD);
    return records.length === 1 ? records[0] : undefined;
  } catch {
    return undefined;
  }
}
