// The validation pass writes each record ready to send; the send pass streams it back. The input is
// read and every record built once, and the file keeps memory flat however large the campaign is.
import { open, type FileHandle } from 'node:fs/promises';
import { DiskFile } from '../shared/disk.js';
import { describeSystemError, diskAdvice, UsageError } from '../shared/errors.js';
import type { Encoding } from '../message/encoding.js';
import { decimal } from '../shared/digits.js';
import { eachLine, lineBlocks, lineChunks, TEXT_PIECE_BYTES } from '../shared/files.js';
import type { Entry } from './entries.js';

/**
 * The spool is written while the input is checked, before anything is sent: a full disk here is
 * the operator's to fix, not a bug (exit 2, nothing sent).
 */
function unwritable(path: string, error: unknown): UsageError {
  return new UsageError(
    `cannot write the campaign's spool ${path}: ${describeSystemError(error)}. Nothing was ` +
      `sent. ${diskAdvice(error, 'the state directory (SMS_SEND_STATE_DIR)')}`,
    'state-unwritable',
  );
}

/**
 * Writes one line per record: `M\trow\tto\tmessageId\tsegments\tencoding\tnormalized\t<message JSON>`
 * (a column left empty when absent) or `F\t<final entry JSON>`.
 */
export class SpoolWriter {
  private buffer: string[] = [];
  private size = 0;

  private constructor(
    readonly path: string,
    private readonly file: DiskFile,
  ) {}

  static async create(path: string): Promise<SpoolWriter> {
    try {
      return new SpoolWriter(path, await DiskFile.open(path, 'w'));
    } catch (error) {
      throw unwritable(path, error);
    }
  }

  add(entry: Entry): void {
    this.addLines(spoolLine(entry));
  }

  private addLines(lines: string): void {
    this.buffer.push(lines);
    this.size += lines.length;
    // Counted in characters: a text of two-byte characters still stays a regular V8 string.
    if (this.size > TEXT_PIECE_BYTES / 2) this.flush();
  }

  /** Whole lines already encoded (a worker thread's part of the campaign), after those added. */
  addBytes(lines: Uint8Array): void {
    this.flush();
    this.write(() => this.file.writeBytes(lines));
  }

  private flush(): void {
    if (this.buffer.length === 0) return;
    const text = this.buffer.join('');
    this.buffer = [];
    this.size = 0;
    this.write(() => this.file.write(text));
  }

  private write(out: () => void): void {
    try {
      out();
    } catch (error) {
      throw unwritable(this.path, error);
    }
  }

  /**
   * Writes what is buffered and syncs the spool: the send pass reads it back, and a spool whose
   * sync failed may read back short or as zeros (the kernel may have dropped its pages), so it is
   * never read: the run stops here, before anything is sent.
   */
  async close(): Promise<void> {
    try {
      this.flush();
      await this.file.datasync().catch((error: unknown) => {
        throw unwritable(this.path, error);
      });
    } finally {
      // Closed also when the last write fails, or the handle would wait for the garbage collector.
      await this.file.close();
    }
  }
}

/**
 * The spool read back is not what the validation pass wrote (a failing disk): nothing of it is
 * sent. The send loop stops on it as on any state it cannot rely on.
 */
export class SpoolUnreadableError extends Error {
  constructor(path: string, what: string) {
    super(`the campaign's spool ${path} does not read back as written (${what})`);
  }
}

/** Message lines keep the JSON as text, so the send pass joins it into a body without reparsing. */
export function spoolLine(entry: Entry): string {
  if (entry.kind === 'message') {
    const { segments, normalized } = entry;
    return `M\t${decimal(entry.row)}\t${entry.to}\t${entry.messageId}\t${segments === undefined ? '' : decimal(segments)}\t${entry.encoding ?? ''}\t${normalized === undefined ? '' : decimal(normalized)}\t${entry.json}\n`;
  }
  return `F\t${JSON.stringify(entry)}\n`;
}

/**
 * Streams the spool back for sendLoop(), a chunk of entries per read. With `keep`, a message whose
 * row it turns down is passed over from its row's bytes, never decoded: a resume reads past
 * millions of settled records at the speed of the disk (see docs/architecture.md#resume). Every
 * line is checked as it passes (its kind, its row counting up, a message's JSON whole) and, with
 * `lines`, their number: a spool that does not read back as written is never sent from.
 */
export async function* readSpool(
  path: string,
  keep?: (row: number) => boolean,
  lines?: number,
): AsyncGenerator<Entry[]> {
  const handle = await open(path, 'r');
  const check = new LineCheck(path);
  try {
    await endsWithNewline(handle, check);
    if (!keep) {
      for await (const chunk of lineChunks(handle)) yield chunk.map((line) => check.next(line));
    } else {
      for await (const block of lineBlocks(handle)) {
        check.noZeros(block);
        const entries: Entry[] = [];
        eachLine(block, (start, end) => {
          const row = check.passed(block, start);
          if (row === 0 || keep(row)) entries.push(check.whole(block.toString('utf8', start, end)));
        });
        if (entries.length > 0) yield entries;
      }
    }
    if (lines !== undefined && check.count !== lines) {
      throw new SpoolUnreadableError(path, `${check.count} of its ${lines} lines`);
    }
  } finally {
    await handle.close();
  }
}

/** Every line the spool writes ends with a newline: a file that does not was cut short. */
async function endsWithNewline(handle: FileHandle, check: LineCheck): Promise<void> {
  const { size } = await handle.stat();
  if (size === 0) return;
  const last = Buffer.alloc(1);
  await handle.read(last, 0, 1, size - 1);
  if (last[0] !== NEWLINE) check.refuse('its last line is cut short');
}

const NEWLINE = 0x0a;
/** `M`, the first byte of a message's line (`F` begins a final entry's). */
const MESSAGE = 0x4d;
const FINAL = 0x46;
const TAB = 0x09;

/**
 * What every spool line must be before anything of it is used: a message line with its row after
 * the one before and its JSON whole, or a final entry's line. Counted, so the reader can say
 * whether every line came back.
 */
class LineCheck {
  count = 0;
  private lastRow = 0;

  constructor(private readonly path: string) {}

  /**
   * No spool line holds a zero byte: a range of them is what a crash leaves of pages that never
   * reached the disk, and one inside a line would otherwise be sent as part of its JSON.
   */
  noZeros(block: Uint8Array): void {
    if (block.indexOf(0) >= 0) this.refuse('it holds zero bytes, as a crash leaves them');
  }

  /** The next line, decoded: counted, in order, whole. */
  next(line: string): Entry {
    if (line.includes('\0')) this.refuse(`line ${this.count + 1} holds zero bytes`);
    const entry = this.whole(line);
    this.count++;
    if (entry.kind === 'message') this.follows(entry.row);
    return entry;
  }

  /** The next line, from its bytes: counted, in order; its row, or 0 for a final entry's. */
  passed(block: Buffer, start: number): number {
    const kind = block[start];
    if (block[start + 1] !== TAB || (kind !== MESSAGE && kind !== FINAL)) {
      return this.refuse(`line ${this.count + 1} is not a spool line`);
    }
    this.count++;
    if (kind === FINAL) return 0;
    const row = rowAt(block, start);
    this.follows(row);
    return row;
  }

  /** A line's entry, once the line is whole: its kind, a message's JSON closed, a final's parsed. */
  whole(line: string): Entry {
    const entry = line.startsWith('M\t') && line.endsWith('}') ? parseLine(line) : undefined;
    if (entry) return entry;
    if (line.startsWith('F\t')) {
      try {
        return JSON.parse(line.slice(2)) as Entry;
      } catch {
        // Refused below, as a line cut short.
      }
    }
    return this.refuse(`line ${this.count + 1} is not a whole spool line`);
  }

  private follows(row: number): void {
    if (!(row > this.lastRow)) this.refuse(`line ${this.count} is out of order`);
    this.lastRow = row;
  }

  refuse(what: string): never {
    throw new SpoolUnreadableError(this.path, what);
  }
}
/** The row of the message line starting at `start`: the digits after `M\t` (0 when none are). */
function rowAt(block: Buffer, start: number): number {
  let row = 0;
  let at = start + 2;
  for (; at < block.length && block[at] !== TAB; at++) {
    const digit = block[at]! - 0x30;
    if (digit < 0 || digit > 9) return 0;
    row = row * 10 + digit;
  }
  return at === start + 2 ? 0 : row;
}

/** A message line's entry, or undefined when it lacks a column. */
function parseLine(line: string): Entry | undefined {
  const a = line.indexOf('\t', 2);
  const b = line.indexOf('\t', a + 1);
  const c = line.indexOf('\t', b + 1);
  const d = line.indexOf('\t', c + 1);
  const e = line.indexOf('\t', d + 1);
  const f = line.indexOf('\t', e + 1);
  if (f < 0) return undefined;
  const entry: Entry = {
    kind: 'message',
    row: Number(line.slice(2, a)),
    to: line.slice(a + 1, b),
    messageId: line.slice(b + 1, c),
    json: line.slice(f + 1),
  };
  if (d > c + 1) entry.segments = Number(line.slice(c + 1, d));
  if (e > d + 1) entry.encoding = line.slice(d + 1, e) as Encoding;
  if (f > e + 1) entry.normalized = Number(line.slice(e + 1, f));
  return entry;
}
