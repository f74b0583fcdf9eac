// An input's digest is remembered by its file's identity and times, and trusted only while they
// are the same: a resume of a large campaign need not read its input again.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { appendFile, readFile, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InputDigests } from '../../src/journal/input-digests.js';
import { tempDir } from '../helpers/files.js';

let dir: Awaited<ReturnType<typeof tempDir>>;
beforeAll(async () => {
  dir = await tempDir();
});
afterAll(() => dir.remove());

const sha = (text: string) => createHash('sha256').update(text).digest('hex');
/** A clock a minute on: the files written here count as settled long before they were hashed. */
const later = () => Date.now() + 60_000;
const FAKE = 'f'.repeat(64);

/** Hashes `file` into a fresh state folder, then puts FAKE in place of what was remembered. */
async function rememberedFake(name: string, text: string) {
  const state = join(dir.path, `state-${name}`);
  const file = join(dir.path, `${name}.csv`);
  await writeFile(file, text);
  const first = await InputDigests.open(state, later);
  expect(await first.digest(file)).toEqual({ sha256: sha(text), bytes: Buffer.byteLength(text) });
  await first.save();
  const saved = join(state, 'input-digests.json');
  await writeFile(saved, (await readFile(saved, 'utf8')).replace(sha(text), FAKE));
  return { state, file };
}

describe('InputDigests', () => {
  it('gives the remembered digest while the file is the one hashed', async () => {
    const { state, file } = await rememberedFake('same', 'to,text\n4741000000,hi\n');
    expect((await (await InputDigests.open(state)).digest(file)).sha256).toBe(FAKE);
  });

  it.each([
    ['grew', (file: string) => appendFile(file, '4741000001,hi\n')],
    ['was rewritten with new times', (file: string) => utimes(file, 1_000_000, 1_000_000)],
    [
      'was written anew at the same size',
      (file: string) => writeFile(file, 'to,text\n4741000009,hi\n'),
    ],
  ])('hashes the file again when it %s', async (_what, change) => {
    const { state, file } = await rememberedFake(
      `changed-${_what.length}`,
      'to,text\n4741000000,hi\n',
    );
    await new Promise((r) => setTimeout(r, 20));
    await change(file);
    const text = await readFile(file, 'utf8');
    expect((await (await InputDigests.open(state)).digest(file)).sha256).toBe(sha(text));
  });

  it('does not remember a file changed just before it was hashed', async () => {
    const state = join(dir.path, 'state-fresh');
    const file = join(dir.path, 'fresh.csv');
    await writeFile(file, 'to,text\n');
    const digests = await InputDigests.open(state);
    expect((await digests.digest(file)).sha256).toBe(sha('to,text\n'));
    await digests.save();
    expect(existsSync(join(state, 'input-digests.json'))).toBe(false);
  });

  it('forgets a file of digests that does not parse, and hashes again', async () => {
    const { state, file } = await rememberedFake('broken', 'to,text\n');
    await writeFile(join(state, 'input-digests.json'), '{"v":1,"files":');
    expect((await (await InputDigests.open(state)).digest(file)).sha256).toBe(sha('to,text\n'));
  });
});
