// Whether a path exists: asked before creating reports, journals and locks.
import { access } from 'node:fs/promises';

export async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}
