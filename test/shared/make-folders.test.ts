// makeFolders under the conditions a run meets: makers racing for the same folders, a file in the way.
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeFolders } from '../../src/shared/disk.js';

const root = await mkdtemp(join(tmpdir(), 'sms-send-folders-'));
afterAll(() => rm(root, { recursive: true, force: true }));

describe('makeFolders', () => {
  it('makes every missing folder, private', async () => {
    const path = join(root, 'a', 'b', 'c');
    await makeFolders(path);
    expect((await stat(path)).isDirectory()).toBe(true);
    expect((await stat(join(root, 'a'))).mode & 0o777).toBe(0o700);
  });

  it.each([2, 5, 20])('%i makers of the same folders at once all succeed', async (makers) => {
    const path = join(root, `race-${makers}`, 'state', 'campaigns');
    await Promise.all(Array.from({ length: makers }, () => makeFolders(path)));
    expect((await stat(path)).isDirectory()).toBe(true);
  });

  it('refuses a file in the way, naming its code', async () => {
    const file = join(root, 'file');
    await writeFile(file, 'x');
    await expect(makeFolders(file)).rejects.toMatchObject({ code: 'EEXIST' });
    await expect(makeFolders(join(file, 'below'))).rejects.toMatchObject({ code: 'ENOTDIR' });
  });
});
