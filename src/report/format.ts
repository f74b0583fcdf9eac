// The report formats in one table: the extensions that choose each, how rows are laid out, how they read back.
import { isPlainObject } from '../shared/plain-object.js';
import type { FileHandle } from 'node:fs/promises';
import { extname } from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { parse } from 'csv-parse';
import type { CastReturnObject } from 'csv-stringify';
import { stringify, type Options } from 'csv-stringify/sync';
import { UsageError } from '../shared/errors.js';
import { stringifyWellFormed } from './row.js';

export type ReportFormat = 'csv' | 'json' | 'ndjson' | 'junit';

/** The report formats that can be read back and rewritten; JUnit XML is for CI dashboards only. */
export type ReadableFormat = Exclude<ReportFormat, 'junit'>;

/**
 * How a text format lays rows out in its file. `Unit` is one row already encoded: its cells for
 * CSV, its JSON for json and ndjson.
 */
export interface Layout<Unit> {
  head(columns: readonly string[]): string;
  /** Rows written together; `first` when no row came before them. */
  body(rows: Unit[], first: boolean): string;
  /** `empty` when no row was written at all. */
  tail(empty: boolean): string;
}

/**
 * One entry of a report read back, in file order; CSV's header comes first. `line` is where a row
 * starts (json: its index + 1). `values` has CSV formula escapes removed. What a rewrite needs to
 * copy a row as the file holds it: `cells` (csv, escapes kept) and `text` (an ndjson line; an
 * unreadable json element as JSON).
 */
export type ReadRow =
  | { kind: 'header'; columns: string[] }
  | { kind: 'row'; line: number; values: Record<string, unknown>; cells?: string[]; text?: string }
  | { kind: 'unreadable'; line: number; text: string };

/** A cell that is a plain number: `+4741234567` stays a phone number rather than text, as before. */
const PLAIN_NUMBER = /^[+-]\d+(\.\d+)?$/;

/**
 * Spreadsheets run a cell that starts with = + - @ (or their full-width forms, tab or CR) as a
 * formula; csv-stringify's escape_formulas prefixes such a cell with an apostrophe, which keeps it
 * text. Plain numbers are exempt: they cannot carry a formula. A cast may override any option for
 * its field (csv-stringify's cast documentation), though its type names only some of them.
 */
export const CSV_OPTIONS: Options = {
  escape_formulas: true,
  cast: {
    string: (value) => {
      if (!PLAIN_NUMBER.test(value)) return value;
      const exempt = { value, escape_formulas: false };
      return exempt satisfies CastReturnObject;
    },
  },
};

/**
 * Undoes the formula escape: `'=x` → `=x`, but leaves a value that merely starts with `'` alone.
 * A cell was escaped exactly when escaping what follows the apostrophe adds one; reports written
 * by the hand-made escape before read the same, since it escaped a subset of these.
 */
export function unescapeFormula(cell: string): string {
  if (!cell.startsWith("'")) return cell;
  const rest = cell.slice(1);
  return stringify([[rest]], CSV_OPTIONS) === stringify([[rest]]) ? cell : rest;
}

/**
 * A cell csv-stringify would write as it is: nothing to quote, nothing a spreadsheet would run.
 * Almost every report cell is one (digits, ids, outcome words), and joining those by hand skips
 * the library's per-cell work (docs/benchmark.md); a row with any other cell goes to the library whole.
 */
const NEEDS_LIBRARY = /[",\n\r]|^[=+\-@\t\uFF1D\uFF0B\uFF0D\uFF20]/;

/** The CSV of rows, as `stringify(rows, CSV_OPTIONS)` writes it (the report tests hold them equal). */
export function csvRows(rows: readonly (readonly string[])[]): string {
  let text = '';
  for (const cells of rows) {
    text += cells.some((cell) => NEEDS_LIBRARY.test(cell))
      ? stringify([cells], CSV_OPTIONS)
      : `${cells.join(',')}\n`;
  }
  return text;
}

const CSV_LAYOUT: Layout<string[]> = {
  head: (columns) => stringify([[...columns]]),
  body: csvRows,
  tail: () => '',
};

/** One row per line, so a run killed mid-way leaves rows that can still be read (see readJson). */
const JSON_LAYOUT: Layout<string> = {
  head: () => '[\n',
  body: (rows, first) => (first ? '' : ',\n') + rows.map((row) => `  ${row}`).join(',\n'),
  tail: (empty) => (empty ? ']\n' : '\n]\n'),
};

const NDJSON_LAYOUT: Layout<string> = {
  head: () => '',
  body: (rows) => `${rows.join('\n')}\n`,
  tail: () => '',
};

async function* readCsv(source: FileHandle, path: string): AsyncGenerator<ReadRow> {
  const input = source.createReadStream({ autoClose: false, encoding: 'utf8' });
  const parser = input.pipe(parse({ bom: true, relax_column_count: true, skip_empty_lines: true }));
  let header: string[] | undefined;
  let line = 1;
  try {
    for await (const record of parser) {
      const cells = record as string[];
      if (!header) {
        header = cells;
        yield { kind: 'header', columns: cells };
        continue;
      }
      line++;
      const values = Object.fromEntries(
        header.map((name, i) => [name, unescapeFormula(cells[i] ?? '')]),
      );
      yield { kind: 'row', line, values, cells };
    }
  } catch (error) {
    throw new UsageError(`${path}: not a readable CSV report: ${(error as Error).message}`);
  } finally {
    input.destroy();
  }
}

async function* readNdjson(source: FileHandle): AsyncGenerator<ReadRow> {
  const input = source.createReadStream({ autoClose: false, encoding: 'utf8' });
  for await (const { line, text, value } of jsonLines(input)) {
    yield isPlainObject(value)
      ? { kind: 'row', line, values: value, text }
      : { kind: 'unreadable', line, text };
  }
}

async function* readJson(source: FileHandle, path: string): AsyncGenerator<ReadRow> {
  const items = jsonReportItems(await source.readFile('utf8'), path);
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    yield isPlainObject(item)
      ? { kind: 'row', line: i + 1, values: item }
      : { kind: 'unreadable', line: i + 1, text: stringifyWellFormed(item) };
  }
}

interface FormatEntry {
  extensions: readonly string[];
  layout?: Layout<never>;
  read?: (source: FileHandle, path: string) => AsyncGenerator<ReadRow>;
}

/**
 * Every format: the extensions that choose it (the first is the one messages name; no extension
 * means CSV), its layout and its reader. JUnit wants its counts on the opening tag, so it has a
 * writer of its own (writer.ts), and nothing reads it back.
 */
export const FORMATS = {
  csv: { extensions: ['.csv', ''], layout: CSV_LAYOUT, read: readCsv },
  json: { extensions: ['.json'], layout: JSON_LAYOUT, read: readJson },
  ndjson: { extensions: ['.ndjson', '.jsonl'], layout: NDJSON_LAYOUT, read: readNdjson },
  junit: { extensions: ['.xml'] },
} as const satisfies Record<ReportFormat, FormatEntry>;

const ALL = Object.keys(FORMATS) as ReportFormat[];
const READABLE = ALL.filter((format): format is ReadableFormat => format !== 'junit');

/** The format a report's extension names, if any. */
export function formatOf(path: string): ReportFormat | undefined {
  const ext = extname(path).toLowerCase();
  return ALL.find((format) => (FORMATS[format].extensions as readonly string[]).includes(ext));
}

/** `.csv, .json or .ndjson` */
function extensionList(formats: readonly ReportFormat[]): string {
  const names = formats.map((format) => FORMATS[format].extensions[0]);
  return `${names.slice(0, -1).join(', ')} or ${names.at(-1)}`;
}

/** The format a report is written in, from its extension. */
export function reportFormat(path: string): ReportFormat {
  const format = formatOf(path);
  if (format) return format;
  throw new UsageError(`--report ${path}: the extension must be ${extensionList(ALL)}`);
}

/** The format of a report to read back, from its extension, as the writers chose it. */
export function readableFormat(path: string): ReadableFormat {
  const format = formatOf(path);
  if (format === 'junit') {
    throw new UsageError(
      `${path}: a JUnit XML report cannot be read back; use a ${extensionList(READABLE)} report`,
    );
  }
  if (format) return format;
  throw new UsageError(`${path}: a report's extension must be ${extensionList(READABLE)}`);
}

/** Non-empty lines of an NDJSON file, each parsed (`value` undefined when it is not JSON). */
export async function* jsonLines(
  input: Readable,
): AsyncGenerator<{ line: number; text: string; value: unknown }> {
  for await (const { line, text } of textLines(input)) {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      value = undefined;
    }
    yield { line, text, value };
  }
}

/** Non-empty lines with their 1-based line numbers. */
export async function* textLines(input: Readable): AsyncGenerator<{ line: number; text: string }> {
  const lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
  let line = 0;
  try {
    for await (const text of lines) {
      line++;
      if (text.trim() !== '') yield { line, text };
    }
  } finally {
    input.destroy();
  }
}

/**
 * The elements of a JSON report. A run killed mid-way leaves `[` and one row per line without
 * the closing `]`; such a file is read line by line, as the writer wrote it.
 */
function jsonReportItems(text: string, path: string): unknown[] {
  // A run killed before it wrote anything leaves an empty file: no rows yet.
  if (text.trim() === '') return [];
  try {
    const value: unknown = JSON.parse(text);
    if (Array.isArray(value)) return value;
  } catch {
    // Possibly cut short: read the writer's layout below.
  }
  const lines = text.split('\n');
  if (lines[0]?.trim() !== '[') throw new UsageError(`${path}: not a JSON report (an array)`);
  const items: unknown[] = [];
  for (let i = 1; i < lines.length; i++) {
    const trimmed = lines[i]!.trim().replace(/,$/, '');
    if (trimmed === '' || trimmed === ']') continue;
    try {
      items.push(JSON.parse(trimmed));
    } catch {
      throw new UsageError(`${path}:${i + 1}: not a readable JSON report row`);
    }
  }
  return items;
}
