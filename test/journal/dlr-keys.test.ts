// The state directory's delivery-report secret: made once, owner-only, the same for every run.
import { chmod, readFile, rename, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { folderDlrKeys, secretPath } from '../../src/journal/folder/dlr-keys.js';
import type { KeyObject } from 'node:crypto';
import { tempDir } from '../helpers/files.js';

let dir: Awaited<ReturnType<typeof tempDir>>;
beforeEach(async () => {
  dir = await tempDir();
});
afterEach(async () => {
  await chmod(dir.path, 0o700);
  await dir.remove();
});

/** The key a run signs with, made first if none is. */
async function currentKey(stateDir: string): Promise<KeyObject> {
  return (await folderDlrKeys(stateDir, true)).keys[0]!;
}

describe('the current key', () => {
  it('makes 32 random bytes readable by the owner only, and reads them thereafter', async () => {
    const stateDir = join(dir.path, 'state');
    const made = await currentKey(stateDir);
    const info = await stat(secretPath(stateDir));
    expect(info.mode & 0o777).toBe(0o600);
    expect(info.size).toBe(32);
    const again = await currentKey(stateDir);
    expect(again.export().equals(made.export())).toBe(true);
    expect((await readFile(secretPath(stateDir))).equals(made.export())).toBe(true);
  });

  it('gives runs that make it at the same moment the same secret', async () => {
    const keys = await Promise.all(Array.from({ length: 8 }, () => currentKey(dir.path)));
    const first = keys[0]!.export();
    expect(keys.every((k) => k.export().equals(first))).toBe(true);
  });

  it('never prints it: a KeyObject serialises to nothing', async () => {
    const key = await currentKey(dir.path);
    expect(JSON.stringify({ key })).toBe('{"key":{}}');
  });
});

describe('every key', () => {
  it('lists none before any send, then the current one first and the retired ones after', async () => {
    expect((await folderDlrKeys(dir.path)).keys).toEqual([]);
    const old = await currentKey(dir.path);
    await rename(secretPath(dir.path), `${secretPath(dir.path)}.2026-01`);
    const current = await currentKey(dir.path);
    expect(current.export().equals(old.export())).toBe(false);
    const keys = (await folderDlrKeys(dir.path)).keys;
    expect(keys.map((k) => k.export().toString('hex'))).toEqual([
      current.export().toString('hex'),
      old.export().toString('hex'),
    ]);
  });
});
