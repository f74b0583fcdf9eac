// Names made durable the way POSIX asks: a created (or renamed) entry survives a crash only once its folder is synced.
import { mkdir, open } from 'node:fs/promises';
import { dirname } from 'node:path';

/**
 * Syncs a folder, so the entries created or renamed in it survive a machine crash: fsync of a
 * file makes its data durable, not the name that leads to it (ext4 and XFS happen to do both,
 * POSIX does not promise it). See docs/architecture.md#durable-names.
 */
export async function syncFolder(path: string): Promise<void> {
  const folder = await open(path, 'r');
  try {
    await folder.sync();
  } catch {
    // Some file systems cannot sync a folder; nothing more can be done there.
  } finally {
    await folder.close();
  }
}

/** `mkdir -p` (private folders) whose new folders are each synced in their parent. */
export async function makeFolders(path: string): Promise<void> {
  const first = await mkdir(path, { recursive: true, mode: 0o700 });
  if (first === undefined) return;
  // Every folder from `first` down to `path` is new; each parent's entry for it is synced.
  const parents: string[] = [];
  for (let folder = path; ; folder = dirname(folder)) {
    parents.unshift(dirname(folder));
    if (folder === first || dirname(folder) === folder) break;
  }
  for (const parent of parents) await syncFolder(parent);
}
