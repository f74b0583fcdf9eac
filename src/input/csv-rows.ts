// A CSV file's rows, chunk by chunk: csv-parse reads anything quoted; runs of plain lines are split by hand.
import { CsvError } from 'csv-parse';
import { readUtf8 } from './bytes.js';
import { CsvRowsError, ParserRun } from './csv-parser-run.js';
import { splitLines } from './plain-lines.js';
import { QuoteScanner } from './quotes.js';

/**
 * The first chunk is small: it goes to csv-parse whole (header, byte order mark), and a first
 * chunk of 32 KiB made csv-parse hot enough for V8 to spend time optimising it for a file that
 * needs it for nothing else.
 */
const FIRST_CHUNK_BYTES = 4 * 1024;
const CR = 0x0d;
const LF = 0x0a;

/**
 * A line this long goes to csv-parse whatever it holds: csv-parse is the one that refuses a
 * record over the size limit, and a file without line breaks is never gathered in memory.
 */
const LONG_LINE_BYTES = 64 * 1024;

/**
 * A record csv-parse could not read stands in the rows as this empty row (csv-parse never gives
 * one: a blank line is one empty field), its error in `CsvRows.malformed`, in the same order.
 */
export const MALFORMED_ROW: string[] = [];

/** A record csv-parse could not read: its error, its line, and the line reading went on from. */
export interface MalformedRow {
  error: unknown;
  line: number | undefined;
  next: number;
}

export interface CsvRowsOptions {
  path: string;
  delimiter: string;
  maxRecordBytes: number;
  /** Where reading starts: the file's start, or a worker's byte range after a record. */
  start: number;
  /** The line at `start`. */
  line: number;
  /** Known when reading starts after the header (a worker's range); otherwise csv-parse finds it. */
  recordDelimiter?: '\n' | '\r\n';
  end?: number;
  /**
   * false: every byte through one csv-parse parser, chunk by chunk, as sms-send once read all
   * CSV. The split by hand is tested against it.
   */
  split?: boolean;
}

/**
 * Rows as csv-parse would give them for the whole file. csv-parse costs most of the validation
 * pass (its parse, and the optimising compiler's time for its large parse function, docs/benchmark.md#measured-choices-in-the-code),
 * yet most campaign files quote nothing. So the file is cut after its last line break in each
 * chunk, and a run of whole lines with no quote and no carriage return is split on the delimiter
 * by hand, which is exactly what csv-parse makes of such lines. Everything else (the first line,
 * with its byte order mark and its line ending, quoted fields, CRLF files, lines over 64 KiB) goes
 * to csv-parse, started afresh at the first byte it is given so its error positions stay right.
 * A parser is left only where it is between records: after a line break, with an even number of
 * quotes seen (an odd number means a quoted field goes on over the line break).
 */
export class CsvRows {
  private chunks: AsyncGenerator<Buffer>;
  /** The file offset of the next byte the chunks give. */
  private position: number;
  /** Bytes after the last line break read, not given to anyone yet; and the line they start on. */
  private pending: Buffer | undefined;
  private pendingLine: number;
  /** The csv-parse run the file's bytes go to at present, if any. */
  private run: ParserRun | undefined;
  /** Whether lines may be split by hand: decided by the file's first line break. */
  private split: boolean | undefined;
  private ended = false;
  /** csv-parse's error, raised once the rows before it are given. */
  private failure: CsvRowsError | undefined;
  /** The quotes before the file's first line break, while it is looked for. */
  private readonly firstLine = new QuoteScanner();
  /** The errors of the MALFORMED_ROWs given and not yet taken, in order. */
  readonly malformed: MalformedRow[] = [];

  constructor(
    private readonly file: string,
    private readonly options: CsvRowsOptions,
  ) {
    this.chunks = readUtf8(
      options.path,
      file,
      { start: options.start, end: options.end },
      FIRST_CHUNK_BYTES,
    );
    this.position = options.start;
    this.pendingLine = options.line;
    if (options.split === false) this.split = false;
    else if (options.recordDelimiter !== undefined) this.split = options.recordDelimiter === '\n';
    // A delimiter that could meet a quote or a line break inside a line is csv-parse's alone.
    if (/["\r\n]/.test(options.delimiter)) this.split = false;
  }

  /** The rows of the next chunk of the file (maybe none); undefined once the file is done. */
  async next(): Promise<string[][] | undefined> {
    if (this.failure) throw this.failure;
    if (this.ended) return undefined;
    let step: IteratorResult<Buffer>;
    try {
      step = await this.chunks.next();
    } catch (error) {
      throw new CsvRowsError(error, undefined);
    }
    const rows: string[][] = [];
    if (step.done) {
      this.ended = true;
      const rest = this.pending;
      this.pending = undefined;
      if (rest) this.give(rest, this.position - rest.length, this.pendingLine, rows);
      if (this.run) {
        this.run.end(rows);
        await this.collect(rows);
      }
      return rows;
    }
    const chunk = step.value;
    this.position += chunk.length;
    const bytes = this.pending ? Buffer.concat([this.pending, chunk]) : chunk;
    const start = this.position - bytes.length;
    const line = this.pendingLine;
    this.pending = undefined;
    this.split ??= this.firstBreakIsLf(chunk);
    const lastBreak = bytes.lastIndexOf(LF);
    if (this.split === false || (this.run && !this.run.between)) {
      // csv-parse has the file (CRLF or CR line breaks), or has a record to finish.
      this.feed(bytes, start, line, rows);
    } else if (lastBreak === -1) {
      if (bytes.length > LONG_LINE_BYTES) this.feed(bytes, start, line, rows);
      else this.keep(bytes, line);
    } else {
      this.give(bytes.subarray(0, lastBreak + 1), start, line, rows);
      if (lastBreak + 1 < bytes.length) this.keep(bytes.subarray(lastBreak + 1), this.pendingLine);
    }
    await this.collect(rows);
    return rows;
  }

  /** Whole lines (or the file's last bytes): split by hand when they may be, else to csv-parse. */
  private give(bytes: Buffer, start: number, line: number, rows: string[][]): void {
    const simple =
      this.split === true &&
      // The file's first bytes hold the header and may hold a byte order mark: csv-parse's.
      start > 0 &&
      (!this.run || this.run.between) &&
      bytes.indexOf(CR) === -1 &&
      !hasLongLine(bytes);
    const split = simple ? splitLines(bytes.toString('utf8'), this.options.delimiter) : undefined;
    if (!split) {
      this.feed(bytes, start, line, rows);
      return;
    }
    if (this.run) {
      // Between records: ending it gives nothing more, and the next quoted run gets a new one.
      this.run.end(rows);
      // Its error, if it had one after all, is reported by collect(), and nothing after it read.
      if (this.run.errored) return;
      this.run = undefined;
    }
    for (const row of split.rows) rows.push(row);
    this.pendingLine = line + split.lines;
  }

  private feed(bytes: Buffer, start: number, line: number, rows: string[][]): void {
    const { options } = this;
    this.run ??= new ParserRun(
      {
        path: options.path,
        delimiter: options.delimiter,
        maxRecordBytes: options.maxRecordBytes,
        recordDelimiter: options.recordDelimiter ?? (start > 0 && this.split ? '\n' : undefined),
      },
      { start, line },
    );
    const track = this.split !== false;
    this.run.write(bytes, rows, track);
    if (track) this.pendingLine = line + count(bytes, LF);
  }

  private keep(bytes: Buffer, line: number): void {
    // Copied: the chunk it is cut from is not kept.
    this.pending = Buffer.from(bytes);
    this.pendingLine = line;
  }

  /**
   * csv-parse's rows so far. A record it refused becomes a MALFORMED_ROW, and reading goes on
   * on the next line with a new parser, so one pass finds every malformed row; an error that
   * gives no place to go on from is raised on the next call, after the rows before it.
   */
  private async collect(rows: string[][]): Promise<void> {
    if (!this.run || this.failure) return;
    const failure = await this.run.collect(rows);
    if (!failure) return;
    const resume =
      failure.error instanceof CsvError ? await this.run.resumeAfter(failure.error) : undefined;
    if (!resume) {
      this.failure = failure;
      return;
    }
    rows.push(MALFORMED_ROW);
    this.malformed.push({ error: failure.error, line: failure.line, next: resume.line });
    await this.chunks.return(undefined);
    this.run = undefined;
    this.pending = undefined;
    this.position = resume.offset;
    this.pendingLine = resume.line;
    const { path, end } = this.options;
    this.ended = end !== undefined && resume.offset >= end;
    this.chunks = readUtf8(path, this.file, { start: resume.offset, end }, FIRST_CHUNK_BYTES);
  }

  /**
   * csv-parse takes the first line break outside quotes as the file's: lines may be split by
   * hand only when that is a lone LF (not CRLF, not CR). Undecided until one is seen.
   */
  private firstBreakIsLf(chunk: Buffer): boolean | undefined {
    const at = this.firstLine.findBreak(chunk, 0, chunk.length);
    return at === -1 ? undefined : chunk[at] === LF;
  }

  /** Stops reading: what is left of the file is never read, and next() says it is done. */
  async close(): Promise<void> {
    this.ended = true;
    await this.chunks.return(undefined);
  }
}

function count(bytes: Buffer, byte: number): number {
  let n = 0;
  for (let at = bytes.indexOf(byte); at !== -1; at = bytes.indexOf(byte, at + 1)) n++;
  return n;
}

function hasLongLine(bytes: Buffer): boolean {
  if (bytes.length <= LONG_LINE_BYTES) return false;
  let from = 0;
  for (let at = bytes.indexOf(LF); at !== -1; at = bytes.indexOf(LF, from)) {
    if (at - from > LONG_LINE_BYTES) return true;
    from = at + 1;
  }
  return bytes.length - from > LONG_LINE_BYTES;
}
