// The spool the send step reads back: every row as validated, or only those a resume keeps, and a spool that does not read back as written marked so (it is then not kept for the next run).
import { readFile, writeFile } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkedSpool } from '../../../src/campaign/steps/sending.js';
import type { Entry } from '../../../src/validate/entries.js';
import { SpoolUnreadableError } from '../../../src/validate/spool.js';
import { mobile } from '../../helpers/files.js';
import { ready, stepDir, stepRun, type Ready, type StepDir } from '../../helpers/step-run-3.js';

const RECORDS = 4;

let dir: StepDir;
let taken: Ready;
let spool: string;

beforeEach(async () => {
  dir = await stepDir(RECORDS);
  taken = await ready(await stepRun(dir));
  spool = taken.hold.local.spool;
});
afterEach(async () => {
  await taken.close();
  await dir.remove();
});

async function readAll(chunks: AsyncIterable<Entry[]>): Promise<Entry[]> {
  const entries: Entry[] = [];
  for await (const chunk of chunks) entries.push(...chunk);
  return entries;
}

describe('checkedSpool', () => {
  // [case, which rows to keep, the rows read]
  const cases: [string, ((row: number) => boolean) | undefined, number[]][] = [
    ['every row, as validated', undefined, [1, 2, 3, 4]],
    ['only the rows a resume keeps', (row) => row % 2 === 0, [2, 4]],
    ['none, when a resume keeps none', () => false, []],
  ];

  it.each(cases)('reads %s', async (_name, keep, rows) => {
    const checked = checkedSpool(spool, RECORDS);
    const entries = await readAll(checked.read(keep));
    expect(entries.map((e) => [e.row, e.to])).toEqual(rows.map((row) => [row, mobile(row - 1)]));
    expect(checked.unreadable).toBe(false);
  });

  // [case, what becomes of the spool's text, the lines expected]
  const broken: [string, (text: string) => string, number][] = [
    ['a line cut off', (text) => text.slice(0, text.length - 5), RECORDS],
    ['a line lost', (text) => text.split('\n').slice(1).join('\n'), RECORDS],
    ['a line too many for the plan', (text) => text, RECORDS - 1],
    ['a byte zeroed, as a crash leaves a page', (text) => text.replace('\t', '\0'), RECORDS],
  ];

  it.each(broken)(
    'marks a spool with %s unreadable, and sends none of it',
    async (_n, change, lines) => {
      await writeFile(spool, change(await readFile(spool, 'utf8')));
      const checked = checkedSpool(spool, lines);
      await expect(readAll(checked.read())).rejects.toBeInstanceOf(SpoolUnreadableError);
      expect(checked.unreadable).toBe(true);
    },
  );

  it('a spool that is gone is no unreadable spool: the error is the disk’s', async () => {
    const checked = checkedSpool(`${spool}.gone`, RECORDS);
    await expect(readAll(checked.read())).rejects.toMatchObject({ code: 'ENOENT' });
    expect(checked.unreadable).toBe(false);
  });
});
