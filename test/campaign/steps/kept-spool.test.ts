// The spool a campaign keeps for its next run: a resume reuses it only when its stamp names the same
// key and the spool is still the size it was stamped at; anything else validates again.
import { existsSync } from 'node:fs';
import { appendFile, mkdir, readFile, rm, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { keptSpool, keyOf, stampSpool, unstamp } from '../../../src/campaign/steps/kept-spool.js';
import { RowBits } from '../../../src/campaign/steps/row-bits.js';
import { hostCache, type LocalFiles } from '../../../src/journal/cache.js';
import type { Plan } from '../../../src/validate/plan.js';
import { tempDir } from '../../helpers/files.js';

const KEY = keyOf({ id: 'c1', batchSize: 5 });
/** What survives a stamp: the plan is kept as JSON. */
const PLAN = { records: 4, valid: 3, invalid: 1, segments: 3 } as unknown as Plan;
const SPOOL = 'M\t1\t4741000000\tm-1\t1\t\t\t{}\nM\t2\t4741000001\tm-2\t1\t\t\t{}\n';

let dir: Awaited<ReturnType<typeof tempDir>>;
let paths: LocalFiles;
beforeEach(async () => {
  dir = await tempDir();
  paths = hostCache({ stateDir: join(dir.path, 'state') }).files('c1');
  await mkdir(paths.dir, { recursive: true });
  await writeFile(paths.spool, SPOOL);
});
afterEach(async () => {
  await dir.remove();
});

function rows(...list: number[]): RowBits {
  const bits = RowBits.empty();
  for (const row of list) bits.add(row);
  return bits;
}

const rowsIn = (bits: RowBits) => {
  const held: number[] = [];
  bits.count((row) => (held.push(row), true));
  return held;
};

describe('keyOf', () => {
  const parts = { id: 'c1', batchSize: 5, mapping: { to: 'phone' }, limit: undefined };
  it('is the same for the same parts, a SHA-256 in hex', () => {
    expect(keyOf({ ...parts })).toBe(keyOf(parts));
    expect(keyOf(parts)).toMatch(/^[0-9a-f]{64}$/);
  });

  it.each([
    ['another campaign', { id: 'c2' }],
    ['another batch size', { batchSize: 6 }],
    ['another mapping', { mapping: { to: 'mobile' } }],
    ['a limit', { limit: 10 }],
    ['one part more', { strict: true }],
  ])('changes with %s', (_what, change) => {
    expect(keyOf({ ...parts, ...change })).not.toBe(keyOf(parts));
  });
});

describe('a stamped spool', () => {
  it('is found under its key, with its plan and the rows of its messages', async () => {
    await stampSpool(paths, KEY, { plan: PLAN, messages: rows(1, 2, 9) });
    const kept = await keptSpool(paths, KEY);
    expect(kept?.plan).toEqual(PLAN);
    expect(rowsIn(kept!.messages)).toEqual([1, 2, 9]);
    // The stamp holds the size the spool had when it was complete.
    const stamp = JSON.parse(await readFile(paths.spoolStamp, 'utf8')) as { bytes: number };
    expect(stamp.bytes).toBe(Buffer.byteLength(SPOOL));
  });

  it.each([
    ['another key', () => Promise.resolve(), keyOf({ id: 'c1', batchSize: 6 })],
    ['a spool that grew', () => appendFile(paths.spool, 'F\t{}\n'), KEY],
    ['a spool cut short', () => truncate(paths.spool, 10), KEY],
    ['a spool gone', () => rm(paths.spool), KEY],
    ['a stamp gone', () => rm(paths.spoolStamp), KEY],
    ['a stamp torn', () => truncate(paths.spoolStamp, 20), KEY],
    ['a stamp of another version', () => restamp({ v: 1 }), KEY],
    ['a stamp without its rows', () => restamp({ messages: undefined }), KEY],
  ])('is not reused after %s', async (_what, change, key) => {
    await stampSpool(paths, KEY, { plan: PLAN, messages: rows(1, 2) });
    expect(await keptSpool(paths, KEY)).toBeDefined();
    await change();
    expect(await keptSpool(paths, key)).toBeUndefined();
  });

  it('is no longer complete once unstamped, and unstamping twice is no fault', async () => {
    await stampSpool(paths, KEY, { plan: PLAN, messages: rows(1) });
    await unstamp(paths);
    expect(existsSync(paths.spoolStamp)).toBe(false);
    expect(existsSync(paths.spool)).toBe(true);
    expect(await keptSpool(paths, KEY)).toBeUndefined();
    await expect(unstamp(paths)).resolves.toBeUndefined();
  });

  it('is not stamped when there is no spool, and that is no fault', async () => {
    await rm(paths.spool);
    await expect(stampSpool(paths, KEY, { plan: PLAN, messages: rows(1) })).resolves.toBe(
      undefined,
    );
    expect(existsSync(paths.spoolStamp)).toBe(false);
  });
});

/** The stamp written again with these fields changed. */
async function restamp(change: object): Promise<void> {
  const stamp = JSON.parse(await readFile(paths.spoolStamp, 'utf8')) as object;
  await writeFile(paths.spoolStamp, JSON.stringify({ ...stamp, ...change }));
}
