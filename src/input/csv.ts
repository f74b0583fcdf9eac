// CSV reader: header row, BOM, quoted newlines; streams records with the line each one starts on.
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { parse, CsvError } from 'csv-parse';
import { InputError } from './errors.js';
import { StrictUtf8Decoder } from './utf8.js';
import type { OpenedInput, RawRecord } from './types.js';

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
  const counts = new Map<string, number>(CANDIDATES.map((c) => [c, 0]));
  let quoted = false;
  for (const ch of headerLine) {
    if (ch === '"') quoted = !quoted;
    else if (!quoted && counts.has(ch)) counts.set(ch, counts.get(ch)! + 1);
  }
  let best: string = ',';
  for (const candidate of CANDIDATES)
    if (counts.get(candidate)! > counts.get(best)!) best = candidate;
  return best;
}

async function firstLine(file: string): Promise<string> {
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

export async function openCsv(path: string, options: CsvOptions = {}): Promise<OpenedInput> {
  const file = options.label ?? path;
  let delimiter = options.delimiter;
  if (delimiter === undefined) {
    try {
      delimiter = detectDelimiter(await firstLine(path));
    } catch (error) {
      throw toInputError(error, file);
    }
  }
  // Lines are counted here rather than with csv-parse's `info`, which costs a third of parsing.
  const parser = parse({
    bom: true,
    delimiter,
    skip_empty_lines: false,
    relax_column_count: true,
    max_record_size: MAX_RECORD_BYTES,
  });
  // pipe() does not forward errors downstream (a missing file, invalid UTF-8); these handlers do.
  const decoder = new StrictUtf8Decoder(file).on('error', (error) => parser.destroy(error));
  const source = createReadStream(path).on('error', (error) => parser.destroy(error));
  source.pipe(decoder).pipe(parser);
  const rows = parser[Symbol.asyncIterator]() as AsyncIterator<string[]>;

  /** The line the next record starts on. */
  let line = 1;
  let header: string[] | undefined;
  let headerLine = 1;
  for (;;) {
    const first = await next(rows, file, path);
    if (first.done) throw new InputError(file, undefined, 'is empty: expected a header row');
    headerLine = line;
    line += 1 + lineBreaks(first.value);
    if (!isBlank(first.value)) {
      header = first.value;
      break;
    }
  }
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

  async function* records(): AsyncGenerator<RawRecord> {
    for (;;) {
      const row = await next(rows, file, path);
      if (row.done) return;
      const record = row.value;
      const start = line;
      line += 1 + lineBreaks(record);
      if (isBlank(record)) continue;
      if (record.length !== columns.length) {
        throw new InputError(
          file,
          start,
          `malformed CSV: the row has ${record.length} fields but the header has ${columns.length} ` +
            '(a stray delimiter, or a field that needs quotes?)',
        );
      }
      const fields: Record<string, string> = {};
      for (let i = 0; i < columns.length; i++) fields[columns[i]!] = record[i]!;
      yield { file, line: start, fields };
    }
  }
  return { file, format: 'csv', columns, records: records() };
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

async function next(
  rows: AsyncIterator<string[]>,
  file: string,
  path: string,
): Promise<IteratorResult<string[]>> {
  try {
    return await rows.next();
  } catch (error) {
    const line = error instanceof CsvError ? await lineAtByte(path, error) : undefined;
    throw toInputError(error, file, line);
  }
}

/**
 * csv-parse reports an unclosed quote at the end of the file and counts CRLF inside quotes twice,
 * but its `bytes` points into the failing record: counting line breaks up to it gives the line.
 */
async function lineAtByte(path: string, error: CsvError): Promise<number | undefined> {
  const bytes = (error as CsvError & { bytes?: number }).bytes;
  if (typeof bytes !== 'number' || bytes < 0) return undefined;
  let line = 1;
  let seen = 0;
  for await (const chunk of createReadStream(path, { end: Math.max(0, bytes - 1) })) {
    const buffer = chunk as Buffer;
    for (let at = buffer.indexOf(10); at !== -1; at = buffer.indexOf(10, at + 1)) line++;
    seen += buffer.length;
  }
  return seen > 0 || bytes === 0 ? line : undefined;
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
      return match
        ? `the row has ${match[2]} fields but the header has ${match[1]} (a stray delimiter, or a field that needs quotes?)`
        : detail;
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
