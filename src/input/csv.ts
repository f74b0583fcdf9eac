// CSV reader: header row, BOM, quoted newlines; streams records in batches, each with its start line.
import { open } from 'node:fs/promises';
import { CsvError } from 'csv-parse';
import { plural } from '../shared/count.js';
import { CsvRowsError } from './csv-parser-run.js';
import { CsvRows, MALFORMED_ROW } from './csv-rows.js';
import { QuoteScanner } from './quotes.js';
import { InputError } from './errors.js';
import type { InputRecord, OpenedInput } from './types.js';

export interface CsvOptions {
  delimiter?: string;
  /** The name errors and records use, when it differs from the path (stdin is "-"). */
  label?: string;
}

const CANDIDATES = [',', ';', '\t'] as const;

/** No real record comes near this (UserData is at most 1024 characters); a larger one is a broken file. */
export const MAX_RECORD_BYTES = 1024 * 1024;

/** Picks the delimiter that splits the header line most often (outside quotes); comma on a tie. */
export function detectDelimiter(headerLine: string): string {
  const bytes = Buffer.from(headerLine);
  const counts = new Map<string, number>();
  for (const candidate of CANDIDATES) {
    const code = candidate.charCodeAt(0);
    const quotes = new QuoteScanner();
    let n = 0;
    for (let at = quotes.find(bytes, code, 0, bytes.length); at !== -1; n++) {
      at = quotes.find(bytes, code, at + 1, bytes.length);
    }
    counts.set(candidate, n);
  }
  let best: string = ',';
  for (const candidate of CANDIDATES)
    if (counts.get(candidate)! > counts.get(best)!) best = candidate;
  return best;
}

/** The first line of a file (up to 64 KiB), without its line break. */
export async function firstLine(file: string): Promise<string> {
  const handle = await open(file, 'r');
  try {
    const buffer = Buffer.alloc(64 * 1024);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    const text = buffer.toString('utf8', 0, bytesRead);
    const end = text.search(/\r?\n/);
    return end === -1 ? text : text.slice(0, end);
  } finally {
    await handle.close();
  }
}

/**
 * Where a worker starts reading a large file: a byte offset just after a record, the line there,
 * the header's columns, and the record delimiter csv-parse found at the end of the header.
 */
export interface CsvBody {
  start: number;
  end: number;
  line: number;
  columns: readonly string[];
  recordDelimiter: '\n' | '\r\n';
}

export async function openCsv(
  path: string,
  options: CsvOptions & { body?: CsvBody; headerOnly?: boolean; split?: boolean } = {},
): Promise<OpenedInput & { columns: readonly string[] }> {
  const file = options.label ?? path;
  const body = options.body;
  let delimiter = options.delimiter;
  if (delimiter === undefined) {
    try {
      delimiter = detectDelimiter(await firstLine(path));
    } catch (error) {
      throw toInputError(error, file);
    }
  }
  const reader = new CsvReader(
    file,
    new CsvRows(file, {
      path,
      delimiter,
      maxRecordBytes: MAX_RECORD_BYTES,
      start: body?.start ?? 0,
      line: body?.line ?? 1,
      end: body?.end,
      recordDelimiter: body?.recordDelimiter,
      split: options.split,
    }),
    body?.line ?? 1,
  );
  let columns: readonly string[];
  if (body) columns = body.columns;
  else {
    try {
      columns = await reader.readHeader();
    } catch (error) {
      await reader.source.close();
      throw error;
    }
  }
  if (options.headerOnly) await reader.stop();
  return {
    file,
    format: 'csv',
    columns,
    records: reader.records(columns),
    lineAfterHeader: reader.line,
    lineAfter: () => reader.line,
    close: async () => {
      await reader.source.close();
    },
  };
}

/** A CSV file's header and records, numbered by the line each starts on. */
class CsvReader {
  /** Rows read but not yet taken. */
  private rows: string[][] = [];

  constructor(
    private readonly file: string,
    readonly source: CsvRows,
    /** The line the next record starts on. */
    public line: number,
  ) {}

  /** The rows of the next chunk of the file (maybe none); undefined once the file is done. */
  private async nextRows(): Promise<string[][] | undefined> {
    try {
      return await this.source.next();
    } catch (error) {
      if (error instanceof CsvRowsError) throw toInputError(error.error, this.file, error.line);
      throw error;
    }
  }

  /** The header's columns, trimmed; refused when one is unnamed or named twice. */
  async readHeader(): Promise<string[]> {
    const { file } = this;
    let header: string[] | undefined;
    let headerLine = 1;
    let at = 0;
    while (header === undefined) {
      if (at === this.rows.length) {
        const next = await this.nextRows();
        if (next === undefined)
          throw new InputError(file, undefined, 'is empty: expected a header row');
        this.rows = next;
        at = 0;
        continue;
      }
      const first = this.rows[at++]!;
      if (first === MALFORMED_ROW) {
        const bad = this.source.malformed.shift()!;
        throw toInputError(bad.error, file, bad.line);
      }
      headerLine = this.line;
      this.line += 1 + lineBreaks(first);
      if (!isBlank(first)) header = first;
    }
    this.rows = this.rows.slice(at);
    const columns = header.map((c) => c.trim());
    const seen = new Set<string>();
    columns.forEach((column, i) => {
      if (column === '') {
        throw new InputError(file, headerLine, `column ${i + 1} of the header has no name`);
      }
      if (seen.has(column)) {
        throw new InputError(file, headerLine, `column "${column}" appears twice in the header`);
      }
      seen.add(column);
    });
    return columns;
  }

  /** Only the header was asked for: the rest of the file is never read. */
  async stop(): Promise<void> {
    await this.source.close();
    this.rows = [];
  }

  async *records(columns: readonly string[]): AsyncGenerator<InputRecord[]> {
    try {
      yield* this.batches(columns);
    } finally {
      // A bad record ends the reading early: the file is closed all the same.
      await this.source.close();
    }
  }

  private async *batches(columns: readonly string[]): AsyncGenerator<InputRecord[]> {
    const { file } = this;
    const width = columns.length;
    for (
      let batch: string[][] | undefined = this.rows;
      batch !== undefined;
      batch = await this.nextRows()
    ) {
      const out: InputRecord[] = [];
      // A local while the batch is read: the loop runs for every record of the file.
      let line = this.line;
      for (const record of batch) {
        const start = line;
        line += 1 + lineBreaks(record);
        if (isBlank(record)) continue;
        if (record.length !== width) {
          // A row that cannot be read is reported with its line, as an invalid record is, and
          // reading goes on: one pass finds every malformed row.
          let reason = fieldCount(record.length, width);
          let at = start;
          if (record === MALFORMED_ROW) {
            const bad = this.source.malformed.shift()!;
            reason = csvProblem(bad.error);
            at = bad.line ?? start;
            line = bad.next;
          }
          out.push({ row: 0, file, line: at, fields: {}, malformed: reason });
          continue;
        }
        const fields: Record<string, string> = {};
        for (let i = 0; i < width; i++) fields[columns[i]!] = record[i]!;
        out.push({ row: 0, file, line: start, fields });
      }
      this.line = line;
      if (out.length > 0) yield out;
    }
  }
}

/** A blank line parses as one empty field. */
function isBlank(record: readonly string[]): boolean {
  return record.length === 1 && record[0] === '';
}

function lineBreaks(record: readonly string[]): number {
  let breaks = 0;
  for (const value of record) {
    for (let at = value.indexOf('\n'); at !== -1; at = value.indexOf('\n', at + 1)) breaks++;
  }
  return breaks;
}

function fieldCount(fields: number, width: number): string {
  return (
    `the row has ${plural(fields, 'field')} but the header has ${width} ` +
    '(a stray delimiter, or a field that needs quotes?)'
  );
}

/** What csv-parse found wrong with a record, in sms-send's words. */
function csvProblem(error: unknown): string {
  return error instanceof CsvError ? describeCsvError(error) : String(error);
}

function toInputError(error: unknown, file: string, recordLine?: number): Error {
  if (error instanceof InputError) return error;
  if (error instanceof CsvError) {
    const line = recordLine ?? (error as CsvError & { lines?: number }).lines;
    return new InputError(file, line, `malformed CSV: ${describeCsvError(error)}`);
  }
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return new InputError(file, undefined, 'does not exist');
  if (code === 'EISDIR') return new InputError(file, undefined, 'is a directory, not a file');
  if (code === 'EACCES')
    return new InputError(file, undefined, 'is not readable (permission denied)');
  return error instanceof Error ? error : new Error(String(error));
}

function describeCsvError(error: CsvError): string {
  const detail = error.message.replace(/^[^:]*: /, '').replace(/ (at|on) line \d+.*$/, '');
  switch (error.code) {
    case 'CSV_RECORD_INCONSISTENT_FIELDS_LENGTH': {
      const match = /expect (\d+), got (\d+)/.exec(error.message);
      return match ? fieldCount(Number(match[2]), Number(match[1])) : detail;
    }
    case 'CSV_QUOTE_NOT_CLOSED':
      return 'a quoted field in this record is never closed (a missing ")';
    // csv-parse names this code without its CSV_ prefix.
    case 'INVALID_OPENING_QUOTE' as CsvError['code']:
      return 'a quote in the middle of an unquoted field: quote the whole field and double the quote ("Ka""ri")';
    case 'CSV_INVALID_CLOSING_QUOTE':
      return `a quote inside a field must be doubled ("") and the field quoted: ${detail}`;
    case 'CSV_MAX_RECORD_SIZE':
      return `a record is larger than ${MAX_RECORD_BYTES / 1024 / 1024} MiB (is this a CSV file?)`;
    default:
      return detail;
  }
}
