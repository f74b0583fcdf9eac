// An input the user named that cannot be read, said in one way wherever it is met: before the
// gateway's settings are checked, and when the campaign's inputs are hashed.
import { stat } from 'node:fs/promises';
import { UsageError } from '../shared/errors.js';
import type { InputFile } from './open.js';

/** `<label>: the input file does not exist` and the like (exit 2), the file listed for machines. */
export function unreadableInput(
  label: string,
  error: { code?: string; message?: string },
): UsageError {
  const reason =
    error.code === 'ENOENT'
      ? 'the input file does not exist'
      : error.code === 'EISDIR'
        ? 'is a directory, not a file'
        : `cannot read (${error.code ?? error.message ?? 'unknown error'})`;
  return new UsageError(`${label}: ${reason}`, 'input', undefined, [{ file: label, reason }]);
}

/**
 * Every input is there and is a file, looked at without reading it: a file named wrong is the
 * first thing to fix, before a missing endpoint, since nothing could be sent from it anyway.
 */
export async function checkInputsPresent(files: readonly InputFile[]): Promise<void> {
  for (const file of files) {
    let isDirectory: boolean;
    try {
      isDirectory = (await stat(file.path)).isDirectory();
    } catch (error) {
      throw unreadableInput(file.label, error as NodeJS.ErrnoException);
    }
    if (isDirectory) throw unreadableInput(file.label, { code: 'EISDIR' });
  }
}
