// The journal's lines: batches as row ranges, results as columns of runs, every outcome read back
// as written, and a journal of the version before read as it was meant.
import { appendFile, copyFile, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  encodeColumn,
  indexIn,
  rangesOf,
  valueAt,
  type Scalar,
} from '../../src/journal/columns.js';
import { resultLine, batchLine } from '../../src/journal/lines.js';
import { JournalWriter } from '../../src/journal/folder/journal.js';
import { readJournalFile } from '../../src/journal/reading.js';
import type { SettledResult } from '../../src/journal/results.js';

let dir: string;
let path: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sms-send-format-'));
  path = join(dir, 'journal.ndjson');
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('encodeColumn', () => {
  const cases: [string, Scalar[], unknown[]][] = [
    ['one value repeated', ['Accepted', 'Accepted', 'Accepted'], [[3, 'Accepted']]],
    [
      'numbers and nulls',
      [0, 0, null, 5],
      [
        [2, 0],
        [1, null],
        [1, 5],
      ],
    ],
    ['a counter after a prefix', ['ab1-9', 'ab1-10', 'ab1-11'], [[3, 'ab1-', 9, 1]]],
    [
      'eighteen digits: the last fifteen count, zeros kept',
      ['997009990000000099', '997009990000000100'],
      [[2, '997', 9990000000099, 15]],
    ],
    [
      'a break in the count starts a run',
      ['t-1', 't-2', 't-7', 't-8'],
      [
        [2, 't-', 1, 1],
        [2, 't-', 7, 1],
      ],
    ],
    [
      'texts that do not count',
      ['x1', 'y2', 'y2'],
      [
        [1, 'x1'],
        [2, 'y2'],
      ],
    ],
    ['empty', [], []],
  ];
  it.each(cases)('%s', (_name, values, runs) => {
    const encoded = encodeColumn(values);
    expect(encoded).toEqual(runs);
    expect(values.map((_v, i) => valueAt(encoded, i))).toEqual(values);
  });
});

describe('ranges', () => {
  it('name ascending rows as inclusive pairs, and find a row’s place among them', () => {
    const ranges = rangesOf([1, 2, 3, 7, 9, 10]);
    expect(ranges).toEqual([1, 3, 7, 7, 9, 10]);
    expect([1, 3, 7, 9, 10, 4, 11].map((row) => indexIn(ranges, row))).toEqual([
      0, 2, 3, 4, 5, -1, -1,
    ]);
  });
});

/** A hundred accepted results as the simulator answers them: counting ids, one server. */
function acceptedBatch(first: number, count: number): SettledResult[] {
  return Array.from({ length: count }, (_v, i) => ({
    row: first + i,
    outcome: 'accepted' as const,
    attempts: 1,
    statusCode: 0,
    statusDescription: 'Accepted',
    transactionId: `8f3a91c21-${first + i}`,
    extraInfo: { server: 'sim1', subnumref: `99700999${String(first + i).padStart(10, '0')}` },
  }));
}

describe('the journal format', () => {
  it('round-trips every outcome, retries, gateway answers and a delivery report’s confirmation', async () => {
    const results: SettledResult[] = [
      ...acceptedBatch(1, 3),
      {
        row: 4,
        outcome: 'rejected',
        attempts: 1,
        statusCode: 105,
        statusDescription: 'Invalid destination address',
        transactionId: '8f3a91c21-4',
        extraInfo: { server: 'sim1' },
      },
      { row: 5, outcome: 'failed', attempts: 3, error: 'HTTP 503 after 3 attempts' },
      { row: 6, outcome: 'unknown', attempts: 2, error: 'timeout after 30 s' },
      { row: 8, outcome: 'skipped', attempts: 0, error: 'not sent: the run was interrupted' },
      {
        row: 9,
        outcome: 'accepted',
        attempts: 1,
        statusDescription: 'confirmed by delivery report',
      },
    ];
    const writer = await JournalWriter.open(path);
    await writer.append({ t: 'start', v: 2, campaign: 'c', run: 1, at: 'now' });
    await writer.append(batchLine('1:1', [9, 8, 6, 5, 4, 3, 2, 1]));
    await writer.append(resultLine('1:1', [...results].reverse()));
    await writer.append(batchLine('1:2', [10, 11]));
    await writer.close();
    const state = (await readJournalFile(path))!;
    for (const result of results) expect(state.results.get(result.row)).toEqual(result);
    expect(state.results.get(7)).toBeUndefined();
    expect(state.results.size).toBe(results.length);
    expect(Object.fromEntries(state.inFlight)).toEqual({ 10: 1, 11: 1 });
    expect(state).toMatchObject({ campaign: 'c', runs: 1, sent: true });
  });

  it('a campaign without faults takes a few bytes a record, far below 40', async () => {
    const writer = await JournalWriter.open(path);
    await writer.append({ t: 'start', v: 2, campaign: 'c'.repeat(64), run: 1, at: 'now' });
    for (let first = 1; first <= 10_000; first += 100) {
      await writer.append(
        batchLine(
          `1:${first}`,
          acceptedBatch(first, 100).map((r) => r.row),
        ),
      );
      await writer.append(resultLine(`1:${first}`, acceptedBatch(first, 100)));
    }
    await writer.close();
    const { size } = await stat(path);
    expect(size / 10_000).toBeLessThan(5);
    const state = (await readJournalFile(path))!;
    expect(state.results.get(4321)).toEqual(acceptedBatch(4321, 1)[0]);
  });

  it('holds no result text: each row is read back from its line in the file, UTF-8 and all', async () => {
    const texts = ['Ugyldig nummer – æøå', 'ok 📵 ✓', 'plain'];
    const batch = (first: number, text: string): SettledResult[] =>
      [0, 1].map((k) => ({
        row: first + k,
        outcome: 'rejected',
        attempts: 1,
        statusCode: 105,
        statusDescription: `${text} ${first + k}`,
        transactionId: `tx-${first + k}`,
      }));
    const writer = await JournalWriter.open(path);
    await writer.append({ t: 'start', v: 2, campaign: 'c', run: 1, at: 'now' });
    for (const [i, text] of texts.entries()) {
      await writer.append(batchLine(`1:${i + 1}`, [2 * i + 1, 2 * i + 2]));
      await writer.append(resultLine(`1:${i + 1}`, batch(2 * i + 1, text)));
    }
    await writer.close();
    // A torn tail, as a kill leaves it.
    await writeFile(path, `${await readFile(path, 'utf8')}{"t":"result","b":"1:4","r":[7,`);
    const state = (await readJournalFile(path))!;
    expect(state.results.heldBytes).toBe(0);
    // What a resumed run appends afterwards moves no line already read.
    const resumed = await JournalWriter.open(path);
    await resumed.append({ t: 'start', v: 2, campaign: 'c', run: 2, at: 'later' });
    await resumed.close();
    for (const [i, text] of [...texts.entries()].reverse()) {
      for (const result of batch(2 * i + 1, text)) {
        expect(state.results.get(result.row)).toEqual(result);
      }
    }
  });

  it('reads each result back from its place after a line torn in the middle of a character', async () => {
    const rejected = (row: number, text: string): SettledResult => ({
      row,
      outcome: 'rejected',
      attempts: 1,
      statusCode: 105,
      statusDescription: `${text} ${row}`,
    });
    const first = await JournalWriter.open(path);
    await first.append({ t: 'start', v: 2, campaign: 'c', run: 1, at: 'now' });
    await first.append(batchLine('1:1', [1, 2]));
    await first.append(resultLine('1:1', [rejected(1, 'Ugyldig – ø'), rejected(2, 'Ugyldig – ø')]));
    await first.append(batchLine('1:2', [3, 4]));
    await first.close();
    // Killed while writing a result line, in the middle of a two-byte character.
    const torn = Buffer.from('{"t":"result","b":"1:2","r":[3,4],"d":["Ugyldig ø');
    await appendFile(path, torn.subarray(0, torn.length - 1));
    // The next run appends after it, and is read again by the run after that.
    const second = await JournalWriter.open(path);
    await second.append({ t: 'start', v: 2, campaign: 'c', run: 2, at: 'later' });
    await second.append(batchLine('2:1', [3, 4]));
    await second.append(
      resultLine('2:1', [rejected(3, 'Ugyldig – å'), rejected(4, 'Ugyldig – å')]),
    );
    await second.close();
    const state = (await readJournalFile(path))!;
    expect([1, 2, 3, 4].map((row) => state.results.get(row))).toEqual([
      rejected(1, 'Ugyldig – ø'),
      rejected(2, 'Ugyldig – ø'),
      rejected(3, 'Ugyldig – å'),
      rejected(4, 'Ugyldig – å'),
    ]);
  });

  it('refuses a journal in the line-per-row format of a development build, and leaves it as it was', async () => {
    await copyFile(join(import.meta.dirname, '../fixtures/journal/v1.ndjson'), path);
    const before = await readFile(path, 'utf8');
    await expect(readJournalFile(path)).rejects.toMatchObject({ code: 'journal-version' });
    expect(await readFile(path, 'utf8')).toBe(before);
  });
});
