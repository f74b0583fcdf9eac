// Small file-system questions: does it exist, is it a file, its text or entries if it exists.
import { open, readdir, readFile, stat, type FileHandle } from 'node:fs/promises';
import { UsageError } from '../errors.js';

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
 * only a full collection frees, and at a million records their garbage held 40 MB of memory.
 */
export const TEXT_PIECE_BYTES = 48 * 1024;

/**
 * A file's lines, a chunk of them per read, so a file of any size is never held whole and the
 * reader pays one await per chunk, not per line. The last line may lack its newline.
 */
export async function* lineChunks(handle: FileHandle): AsyncGenerator<string[]> {
  let partial = '';
  for await (const chunk of handle.createReadStream({
    encoding: 'utf8',
    highWaterMark: TEXT_PIECE_BYTES,
    autoClose: false,
  })) {
    const lines = (partial + (chunk as string)).split('\n');
    partial = lines.pop()!;
    yield lines;
  }
  if (partial !== '') yield [partial];
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
  missingCode: string,
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
