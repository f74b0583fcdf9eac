// Small file-system questions and moves: does it exist, its text or entries, its lines; a file
// written whole (the one writer of "write aside, sync, rename, sync the folder").
import { readSync } from 'node:fs';
import { open, readdir, readFile, rm, stat, type FileHandle } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { basename, dirname, extname, join } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { DiskFile, renameFile, syncFolder } from './disk.js';
import { UsageError, type ErrorCode } from './errors.js';

export async function exists(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined)) !== undefined;
}

export async function isFile(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined))?.isFile() === true;
}

/** A file's text, or undefined when it does not exist (any other failure is thrown). */
export async function readIfExists(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** Opens a file for reading, or undefined when it does not exist (any other failure is thrown). */
export async function openIfExists(path: string): Promise<FileHandle | undefined> {
  try {
    return await open(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/**
 * Text pieces stay well under V8's large-object size (128 KiB): a larger string lives in a space
 * only a full collection frees, where a long run's garbage would wait (docs/benchmark.md#measured-choices-in-the-code).
 */
export const TEXT_PIECE_BYTES = 48 * 1024;

/**
 * A file's lines, a chunk of them per read, so a file of any size is never held whole and the
 * reader pays one await per chunk, not per line. The last line may lack its newline. Read
 * synchronously: these are files sms-send wrote (journal, spool), a read from the page cache takes
 * microseconds, and the thread pool's round trip cost several times that in CPU.
 */
export async function* lineChunks(handle: FileHandle): AsyncGenerator<string[]> {
  const decoder = new StringDecoder('utf8');
  const buffer = Buffer.allocUnsafe(TEXT_PIECE_BYTES);
  let partial = '';
  for (let chunk = 1; ; chunk++) {
    // Now and then the event loop gets a turn, so a spinner keeps turning through a long read.
    if (chunk % 16 === 0) await new Promise((resolve) => setImmediate(resolve));
    const read = readSync(handle.fd, buffer, 0, buffer.length, null);
    if (read === 0) break;
    const lines = (partial + decoder.write(buffer.subarray(0, read))).split('\n');
    partial = lines.pop()!;
    yield lines;
  }
  partial += decoder.end();
  if (partial !== '') yield [partial];
}

/** A line of a file, with where it starts in the file and its length in bytes (without its newline). */
export interface LineAt {
  text: string;
  start: number;
  bytes: number;
}

/**
 * A file's non-empty lines as lineBlocks() reads them, each with its place in the file. Lines are cut on
 * the bytes before they are decoded, so a line torn in the middle of a character still counts
 * the bytes it has, and every later line's place stays exact.
 */
export async function* linesAt(handle: FileHandle): AsyncGenerator<LineAt[]> {
  /** Where the block starts in the file. */
  let offset = 0;
  for await (const block of lineBlocks(handle)) {
    const lines: LineAt[] = [];
    eachLine(block, (start, end) => {
      lines.push({
        text: block.toString('utf8', start, end),
        start: offset + start,
        bytes: end - start,
      });
    });
    offset += block.length;
    yield lines;
  }
}

/**
 * A file's complete lines as bytes, a block of whole lines per read (the last line may lack its
 * newline), for a reader that decodes only the lines it needs (see docs/architecture.md#resume).
 * Each block is a view of one buffer that the next read reuses: take what is kept from it first.
 */
export async function* lineBlocks(handle: FileHandle): AsyncGenerator<Buffer> {
  let buffer: Buffer = Buffer.allocUnsafe(TEXT_PIECE_BYTES);
  /** Bytes at the buffer's start of a line the last read did not finish. */
  let held = 0;
  for (let read = 1; ; read++) {
    if (read % 16 === 0) await new Promise((resolve) => setImmediate(resolve));
    if (held === buffer.length) buffer = grownBuffer(buffer);
    const got = readSync(handle.fd, buffer, held, buffer.length - held, null);
    if (got === 0) break;
    const filled = held + got;
    const last = buffer.lastIndexOf(10, filled - 1);
    if (last === -1) {
      held = filled;
      continue;
    }
    yield buffer.subarray(0, last + 1);
    held = buffer.copy(buffer, 0, last + 1, filled);
  }
  if (held > 0) yield buffer.subarray(0, held);
}

/** Calls `line` with where each non-empty line of the block starts and ends (before its newline). */
export function eachLine(block: Buffer, line: (start: number, end: number) => void): void {
  for (let start = 0; start < block.length;) {
    let end = block.indexOf(10, start);
    if (end === -1) end = block.length;
    if (end > start) line(start, end);
    start = end + 1;
  }
}

/** A buffer twice the size with `from`'s bytes at its start: a line longer than a block. */
function grownBuffer(from: Buffer): Buffer {
  const into = Buffer.allocUnsafe(from.length * 2);
  from.copy(into);
  return into;
}

/** A folder's entries, or none when it does not exist (any other failure is thrown). */
export async function listIfExists(path: string): Promise<string[]> {
  try {
    return await readdir(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

/**
 * Opens a file the user named for reading; a missing or unreadable one is a usage error (exit 2)
 * that says which kind of file it is ("report x.csv does not exist").
 */
export async function openForReading(
  path: string,
  noun: string,
  missingCode: ErrorCode,
): Promise<FileHandle> {
  try {
    return await open(path, 'r');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(
      code === 'ENOENT'
        ? `${noun} ${path} does not exist`
        : `cannot read ${noun} ${path}: ${(error as Error).message}`,
      code === 'ENOENT' ? missingCode : 'usage',
    );
  }
}

/** Whether a write of a file reaches the disk before it counts as done. */
export interface Durability {
  /**
   * Synced before it is named, and its name synced in its folder: for files a campaign depends on
   * after a power loss. Without, a reader still never sees half of it, but a crash may lose it.
   */
  durable: boolean;
  mode?: number;
}

/**
 * A name beside `path` for writing it aside: hidden, and unique to this process and call; with
 * `extension`, ending as `path` does, for what reads a file by its extension.
 */
export function asideOf(path: string, extension = false): string {
  const name = `.${basename(path)}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`;
  return join(dirname(path), extension ? `${name}${extname(path)}` : name);
}

/**
 * Replaces `path` with `data` whole: written to a file of its own beside it, synced, renamed over
 * it, and its folder synced, so a crash leaves the old content or the new, never half (see
 * docs/campaign-state.md#when-the-disk-fails). A write that fails removes what it wrote aside.
 */
export async function replaceFile(
  path: string,
  data: string | Uint8Array | AsyncIterable<Uint8Array>,
  options: Durability & {
    /**
     * Changes the file written aside before it takes `path`'s place (it may replace it too); the
     * aside file is named with `path`'s extension.
     */
    amend?: (aside: string) => Promise<void>;
  },
): Promise<void> {
  const aside = asideOf(path, options.amend !== undefined);
  try {
    await writeNewFile(aside, data, options);
    await options.amend?.(aside);
    await renameFile(aside, path);
  } catch (error) {
    await rm(aside, { force: true });
    throw error;
  }
  if (options.durable) await syncFolder(dirname(path));
}

/**
 * Creates `path`, which must not exist, holding `data`; synced before it is closed when durable.
 * A write that fails removes the file.
 */
export async function writeNewFile(
  path: string,
  data: string | Uint8Array | AsyncIterable<Uint8Array>,
  options: Durability,
): Promise<void> {
  const file = await DiskFile.open(path, 'wx', options.mode ?? 0o600);
  try {
    if (typeof data === 'string') file.write(data);
    else if (data instanceof Uint8Array) file.writeBytes(data);
    else for await (const part of data) file.writeBytes(part);
    if (options.durable) await file.sync();
  } catch (error) {
    // 'wx' made the file this call's own: half of it is no use to anyone.
    await file.close();
    await rm(path, { force: true });
    throw error;
  }
  await file.close();
}
