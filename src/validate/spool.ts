// The validation pass writes each record ready to send; the send pass streams it back. The input is
// read and every record built once, and the file keeps memory flat however large the campaign is.
import { open } from 'node:fs/promises';
import { DiskFile } from '../shared/disk.js';
import { describeSystemError, UsageError } from '../shared/errors.js';
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
    `cannot write the campaign's spool ${path}: ${describeSystemError(error)}. Nothing ` +
      'was sent; make room in the state directory (SMS_SEND_STATE_DIR) and run again.',
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

  async close(): Promise<void> {
    try {
      this.flush();
    } finally {
      // Closed also when the last write fails, or the handle would wait for the garbage collector.
      await this.file.close();
    }
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
 * millions of settled records at the speed of the disk (see docs/architecture.md#resume).
 */
export async function* readSpool(
  path: string,
  keep?: (row: number) => boolean,
): AsyncGenerator<Entry[]> {
  const handle = await open(path, 'r');
  try {
    if (!keep) {
      for await (const lines of lineChunks(handle)) yield lines.map(parseLine);
      return;
    }
    for await (const block of lineBlocks(handle)) {
      const entries: Entry[] = [];
      eachLine(block, (start, end) => {
        if (block[start] !== MESSAGE || keep(rowAt(block, start))) {
          entries.push(parseLine(block.toString('utf8', start, end)));
        }
      });
      if (entries.length > 0) yield entries;
    }
  } finally {
    await handle.close();
  }
}

/** `M`, the first byte of a message's line (`F` begins a final entry's). */
const MESSAGE = 0x4d;
const TAB = 0x09;

/** The row of the message line starting at `start`: the digits after `M\t`. */
function rowAt(block: Buffer, start: number): number {
  let row = 0;
  for (let at = start + 2; at < block.length && block[at] !== TAB; at++) {
    row = row * 10 + block[at]! - 0x30;
  }
  return row;
}

function parseLine(line: string): Entry {
  if (line.startsWith('F\t')) return JSON.parse(line.slice(2)) as Entry;
  const a = line.indexOf('\t', 2);
  const b = line.indexOf('\t', a + 1);
  const c = line.indexOf('\t', b + 1);
  const d = line.indexOf('\t', c + 1);
  const e = line.indexOf('\t', d + 1);
  const f = line.indexOf('\t', e + 1);
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
