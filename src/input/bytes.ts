// Reads a file (or a byte range of it) as UTF-8-checked buffers: readers parse bytes, not strings.
import { isUtf8 } from 'node:buffer';
import { open } from 'node:fs/promises';
import { InputError } from './errors.js';
import { notUtf8 } from './utf8.js';

/** Bytes of a file from `start` up to `end` (exclusive; the end of the file when undefined). */
export interface ByteRange {
  start: number;
  end?: number;
}

const READ_SIZE = 32 * 1024;

/**
 * Yields the range in chunks that end on a whole character, each checked to be valid UTF-8:
 * invalid bytes are an input error naming their line, never a silent U+FFFD. A range must start
 * on a character boundary (the ranges used start after a line break).
 */
export async function* readUtf8(
  path: string,
  file: string,
  range: ByteRange & { line?: number } = { start: 0 },
  /** The size of the first read, when the reader wants a smaller first chunk. */
  firstRead = READ_SIZE,
): AsyncGenerator<Buffer> {
  const handle = await open(path, 'r');
  try {
    let position = range.start;
    let carry: Buffer | undefined;
    for (;;) {
      const size = position === range.start ? firstRead : READ_SIZE;
      const want = range.end === undefined ? size : Math.min(size, range.end - position);
      if (want <= 0) break;
      const buffer = Buffer.allocUnsafe(want);
      const { bytesRead } = await handle.read(buffer, 0, want, position);
      if (bytesRead === 0) break;
      const read = buffer.subarray(0, bytesRead);
      const bytes = carry ? Buffer.concat([carry, read]) : read;
      const chunkStart = position - (carry?.length ?? 0);
      position += bytesRead;
      const whole = wholeCharacters(bytes);
      const checked = bytes.subarray(0, whole);
      if (!isUtf8(checked)) throw await invalidAt(path, file, chunkStart, checked, range);
      carry = whole < bytes.length ? Buffer.from(bytes.subarray(whole)) : undefined;
      if (checked.length > 0) yield checked;
    }
    if (carry) throw await invalidAt(path, file, position - carry.length, carry, range);
  } finally {
    await handle.close();
  }
}

/** The length of the part of `bytes` that does not end inside a multi-byte character. */
function wholeCharacters(bytes: Buffer): number {
  const n = bytes.length;
  // Look back at most three bytes for the lead byte of the last character.
  for (let back = 1; back <= Math.min(3, n); back++) {
    const byte = bytes[n - back]!;
    if ((byte & 0xc0) === 0x80) continue;
    const need = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return need > back ? n - back : n;
  }
  return n;
}

/** The error for the first invalid byte in `bytes`, which start at `offset` in the file. */
async function invalidAt(
  path: string,
  file: string,
  offset: number,
  bytes: Buffer,
  range: ByteRange & { line?: number },
): Promise<InputError> {
  const probe = new TextDecoder('utf-8', { fatal: true });
  let bad = 0;
  for (; bad < bytes.length; bad++) {
    try {
      probe.decode(bytes.subarray(bad, bad + 1), { stream: true });
    } catch {
      break;
    }
  }
  const line = await lineAt(path, offset + bad, { start: range.start, line: range.line ?? 1 });
  return new InputError(file, line, notUtf8(offset === 0 ? bytes : undefined));
}

/** The offset just after the first line break at or after `offset`, or the file's end. */
export async function nextLineStart(path: string, offset: number): Promise<number> {
  const handle = await open(path, 'r');
  try {
    const buffer = Buffer.allocUnsafe(READ_SIZE);
    for (let seen = offset; ;) {
      const { bytesRead } = await handle.read(buffer, 0, READ_SIZE, seen);
      if (bytesRead === 0) return seen;
      const at = buffer.subarray(0, bytesRead).indexOf(10);
      if (at !== -1) return seen + at + 1;
      seen += bytesRead;
    }
  } finally {
    await handle.close();
  }
}

/**
 * The line of the byte at `offset`: one more than the line breaks before it, counted from `from`
 * (a range read by a worker numbers its lines from its own start). Error paths only.
 */
export async function lineAt(
  path: string,
  offset: number,
  from: { start: number; line: number } = { start: 0, line: 1 },
): Promise<number> {
  let line = from.line;
  let seen = from.start;
  const handle = await open(path, 'r');
  try {
    const buffer = Buffer.allocUnsafe(READ_SIZE);
    while (seen < offset) {
      const { bytesRead } = await handle.read(buffer, 0, Math.min(READ_SIZE, offset - seen), seen);
      if (bytesRead === 0) break;
      for (
        let at = buffer.indexOf(10);
        at !== -1 && at < bytesRead;
        at = buffer.indexOf(10, at + 1)
      )
        line++;
      seen += bytesRead;
    }
  } finally {
    await handle.close();
  }
  return line;
}
