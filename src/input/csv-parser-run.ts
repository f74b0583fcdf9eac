// One run of csv-parse over part of a CSV file: started afresh at the run's first byte, so the
// lines of its errors stay right, and told whether it stands between records.
import { parse, CsvError, type Parser } from 'csv-parse';
import { lineAt, nextLineStart } from './bytes.js';
import { QuoteScanner } from './quotes.js';

const LF = 0x0a;

/** A csv-parse error, with the line of the record it is in when that can be known. */
export class CsvRowsError extends Error {
  constructor(
    readonly error: unknown,
    readonly line: number | undefined,
  ) {
    super(error instanceof Error ? error.message : String(error));
  }
}

export interface ParserRunOptions {
  path: string;
  delimiter: string;
  maxRecordBytes: number;
  /** The record delimiter, when it is known rather than csv-parse's to find. */
  recordDelimiter?: '\n' | '\r\n';
}

export class ParserRun {
  private readonly parser: Parser;
  private readonly quotes = new QuoteScanner();
  /** The run's last byte was a line break outside quotes: it is between records. */
  between = true;

  /** `from`: the file offset and line of the run's first byte. */
  constructor(
    private readonly options: ParserRunOptions,
    private readonly from: { start: number; line: number },
  ) {
    this.parser = parse({
      // Only at the file's start: further in, U+FEFF is a character of a field.
      bom: from.start === 0,
      delimiter: options.delimiter,
      skip_empty_lines: false,
      relax_column_count: true,
      max_record_size: options.maxRecordBytes,
      ...(options.recordDelimiter ? { record_delimiter: options.recordDelimiter } : {}),
    }).on('error', () => undefined);
  }

  /** Parses `bytes`; with `track`, notes whether the run is left between records. */
  write(bytes: Buffer, rows: string[][], track: boolean): void {
    this.parser.write(bytes);
    drain(this.parser, rows);
    if (!track) return;
    this.quotes.skip(bytes, 0, bytes.length);
    this.between = bytes[bytes.length - 1] === LF && !this.quotes.quoted;
  }

  /** No more bytes: the rows of the record it held, if any. */
  end(rows: string[][]): void {
    this.parser.end();
    drain(this.parser, rows);
  }

  get errored(): boolean {
    return Boolean(this.parser.errored);
  }

  /** csv-parse's rows so far, and its error (if it has one) with the line of its record. */
  async collect(rows: string[][]): Promise<CsvRowsError | undefined> {
    drain(this.parser, rows);
    const error: unknown = this.parser.errored;
    if (!error) return undefined;
    return new CsvRowsError(
      error,
      error instanceof CsvError ? await this.lineOf(error) : undefined,
    );
  }

  /**
   * Where reading can go on after a record csv-parse refused: the start of the line after the
   * one its error points into (the start of the field at fault), and that line's number. An
   * unclosed quote is taken to end with its line, so the lines after it are read as records.
   */
  async resumeAfter(error: CsvError): Promise<{ offset: number; line: number } | undefined> {
    const bytes = (error as CsvError & { bytes?: number }).bytes;
    if (typeof bytes !== 'number' || bytes < 0) return undefined;
    const offset = await nextLineStart(this.options.path, this.from.start + bytes);
    return { offset, line: await lineAt(this.options.path, offset, this.from) };
  }

  /**
   * csv-parse reports an unclosed quote at the end of the file and counts CRLF inside quotes
   * twice, but its `bytes` points into the failing record: counting line breaks up to it gives
   * the line.
   */
  private async lineOf(error: CsvError): Promise<number | undefined> {
    const bytes = (error as CsvError & { bytes?: number }).bytes;
    const from = this.from;
    if (typeof bytes !== 'number' || bytes < 0) {
      const lines = (error as CsvError & { lines?: number }).lines;
      return typeof lines === 'number' ? from.line + lines - 1 : undefined;
    }
    return lineAt(this.options.path, from.start + Math.max(bytes, 1), from);
  }
}

function drain(parser: Parser, rows: string[][]): void {
  for (
    let row = parser.read() as string[] | null;
    row !== null;
    row = parser.read() as string[] | null
  )
    rows.push(row);
}
