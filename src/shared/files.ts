// Whether a path exists, or is a file: asked before creating reports and reading them.
import { stat } from 'node:fs/promises';

export async function exists(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined)) !== undefined;
}

export async function isFile(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined))?.isFile() === true;
}
