// Writes a campaign's HTML page: aside, then renamed, so a reader never opens half a page.
import { describeSystemError, UsageError } from '../../shared/errors.js';
import { replaceFile } from '../../shared/files.js';

export async function writePage(path: string, page: string): Promise<void> {
  try {
    await replaceFile(path, page, { durable: false, mode: 0o644 });
  } catch (error) {
    throw new UsageError(`the page ${path} cannot be written: ${describeSystemError(error)}`);
  }
}
