// Writes the campaign's HTML page: aside, then renamed, so a reader never opens half a page.
import { open, rename } from 'node:fs/promises';
import { UsageError } from '../shared/errors.js';

export async function writePage(path: string, page: string): Promise<void> {
  const aside = `${path}.${process.pid}.tmp`;
  try {
    const handle = await open(aside, 'w', 0o644);
    try {
      await handle.writeFile(page);
    } finally {
      await handle.close();
    }
    await rename(aside, path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new UsageError(`the page ${path} cannot be written (${code})`);
  }
}
