// The dry run's repeat count with its digests spilled to bucket files: exact, and nothing left behind.
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/files.js';
import { digestMessage } from '../../src/validate/digest.js';
import { SpilledRepeats } from '../../src/validate/repeat-runs.js';

let dir: Awaited<ReturnType<typeof tempDir>>;
beforeEach(async () => {
  dir = await tempDir();
});
afterEach(() => dir.remove());

/** Adds `messages` and returns the repeats counted, and whether bucket files were written. */
function countRepeats(messages: [string, string][], bucketDigests: number) {
  const parent = join(dir.path, 'tmp');
  const repeats = new SpilledRepeats(parent, bucketDigests);
  const digest = new Int32Array(4);
  for (const [to, text] of messages) {
    digestMessage(to, text, digest);
    repeats.add(digest);
  }
  const spilled = existsSync(parent) && readdirSync(parent).length > 0;
  const count = repeats.count();
  repeats.close();
  const left = existsSync(parent) ? readdirSync(parent) : [];
  return { count, spilled, left };
}

describe('SpilledRepeats', () => {
  // 3,000 messages over 1,200 distinct ones, in an order that puts repeats far apart.
  const messages: [string, string][] = Array.from({ length: 3_000 }, (_, i) => [
    `4790${String((i * 7) % 1_200).padStart(6, '0')}`,
    `Hello ${(i * 7) % 1_200 < 600 ? 'a' : 'b'}`,
  ]);
  const distinct = new Set(messages.map(([to, text]) => `${to}\0${text}`)).size;

  it.each([
    ['in memory', 1024, false],
    ['spilled to bucket files of 2 digests a write', 2, true],
    ['spilled to bucket files of 7 digests a write', 7, true],
  ])('counts every repeat exactly, %s', (_, bucketDigests, spills) => {
    const { count, spilled, left } = countRepeats(messages, bucketDigests);
    expect(distinct).toBe(1_200);
    expect(count).toBe(messages.length - distinct);
    expect(spilled).toBe(spills);
    expect(left).toEqual([]);
  });

  it("removes the bucket folders of this host's runs that are gone, and no others", () => {
    const parent = join(dir.path, 'tmp');
    const host = hostname();
    // A pid above Linux's highest (2^22) is never a live process.
    const gone = join(parent, `repeats-${host}-99999999-abc`);
    const live = join(parent, `repeats-${host}-${process.pid}-def`);
    const elsewhere = join(parent, 'repeats-another-host-99999999-ghi');
    for (const folder of [gone, live, elsewhere]) mkdirSync(folder, { recursive: true });
    countRepeats(messages, 2);
    expect(existsSync(gone)).toBe(false);
    expect(existsSync(live)).toBe(true);
    expect(existsSync(elsewhere)).toBe(true);
  });

  it('counts none among distinct messages, and one for each copy of a message', () => {
    const unique: [string, string][] = Array.from({ length: 500 }, (_, i) => [`4790${i}`, 'x']);
    expect(countRepeats(unique, 3).count).toBe(0);
    const copies: [string, string][] = Array.from({ length: 40 }, () => ['4790000001', 'x']);
    expect(countRepeats(copies, 3).count).toBe(39);
  });
});
