// Whom a campaign may have sent to, read from its journal lines: every way a row can end, as a
// table, and the journal's own files set aside by --force read with the current one.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { batchLine, resultLine } from '../../src/journal/lines.js';
import { sentFromFolder } from '../../src/journal/folder/sent.js';
import { mergeSent, SentRecipients } from '../../src/journal/sent.js';
import type { Outcome } from '../../src/message/outcome.js';
import { tempDir } from '../helpers/files.js';

const to = (row: number) => String(4790000000 + row);

function answer(b: string, outcomes: [row: number, outcome: Outcome][]): string {
  return JSON.stringify(
    resultLine(
      b,
      outcomes.map(([row, outcome]) => ({ row, outcome, attempts: 1 })),
    ),
  );
}

const batch = (b: string, rows: number[]) => JSON.stringify(batchLine(b, rows, rows.map(to)));

/** The rows whose recipients the lines mark as sent to. */
function sentRows(lines: string[]): number[] {
  const sent = new SentRecipients();
  for (const line of lines) sent.line(line);
  return [...sent.finish().numbers].map((n) => n - 4790000000);
}

describe('SentRecipients', () => {
  it.each([
    [
      'accepted',
      [
        batch('1:1', [1, 2]),
        answer('1:1', [
          [1, 'accepted'],
          [2, 'accepted'],
        ]),
      ],
      [1, 2],
    ],
    ['unknown', [batch('1:1', [1]), answer('1:1', [[1, 'unknown']])], [1]],
    [
      'rejected and failed are not sent',
      [
        batch('1:1', [1, 2]),
        answer('1:1', [
          [1, 'rejected'],
          [2, 'failed'],
        ]),
      ],
      [],
    ],
    ['in flight (no answer): may have left', [batch('1:1', [3, 4])], [3, 4]],
    [
      'taken back as unsent (a refused connection)',
      [batch('1:1', [3]), '{"t":"unsent","b":"1:1"}'],
      [],
    ],
    [
      'sent twice, taken back once: still in flight',
      [batch('1:1', [3]), batch('1:1', [3]), '{"t":"unsent","b":"1:1"}'],
      [3],
    ],
    [
      'unknown, then accepted by --retry-unknown: marked once for good',
      [
        batch('1:1', [5]),
        answer('1:1', [[5, 'unknown']]),
        batch('2:1', [5]),
        answer('2:1', [[5, 'rejected']]),
      ],
      [5],
    ],
    [
      'a torn last line is never posted',
      [
        batch('1:1', [1]),
        answer('1:1', [[1, 'accepted']]),
        '{"t":"batch","b":"1:2","r":[2,2],"to":"47',
      ],
      [1],
    ],
    [
      'an answer a delivery report confirmed',
      [batch('1:1', [6]), answer('1:1', [[6, 'failed']]), answer('dlr', [[6, 'accepted']])],
      [6],
    ],
  ])('%s', (_name, lines, rows) => {
    expect(sentRows(lines)).toEqual(rows);
  });

  it('counts the rows it may have sent to whose recipient no line names (an older journal)', () => {
    const sent = new SentRecipients();
    sent.line('{"t":"batch","b":"1:1","r":[1,2]}');
    sent.line(
      answer('1:1', [
        [1, 'accepted'],
        [2, 'rejected'],
      ]),
    );
    expect(sent.finish()).toMatchObject({ unnamed: 1 });
  });

  it('past its first arrays: 200,000 rows in batches of 100, one recipient each, sorted and distinct', () => {
    const sent = new SentRecipients();
    for (let b = 0; b < 2000; b++) {
      const rows = Array.from({ length: 100 }, (_v, i) => b * 100 + i + 1);
      sent.line(
        JSON.stringify(
          batchLine(
            `1:${b}`,
            rows,
            rows.map((row) => to(row % 150_000)),
          ),
        ),
      );
      sent.line(
        answer(
          `1:${b}`,
          rows.map((row) => [row, 'accepted']),
        ),
      );
    }
    const { numbers, unnamed } = sent.finish();
    expect(unnamed).toBe(0);
    expect(numbers).toHaveLength(150_000);
    expect([...numbers.subarray(0, 3)]).toEqual([4790000000, 4790000001, 4790000002]);
  });
});

describe('mergeSent', () => {
  it('merges campaigns into one sorted list, each number once', () => {
    const merged = mergeSent([
      { numbers: Float64Array.from([1, 5, 9]), unnamed: 1 },
      { numbers: Float64Array.from([2, 5, 10]), unnamed: 2 },
    ]);
    expect([...merged.numbers]).toEqual([1, 2, 5, 9, 10]);
    expect(merged.unnamed).toBe(3);
  });
});

describe('sentFromFolder', () => {
  it('reads the journals --force set aside and the current one', async () => {
    const dir = await tempDir();
    try {
      await mkdir(join(dir.path, 'c'));
      await writeFile(
        join(dir.path, 'c', 'journal-1764000000000.ndjson'),
        `${batch('1:1', [1])}\n${answer('1:1', [[1, 'accepted']])}\n`,
      );
      await writeFile(join(dir.path, 'c', 'journal.ndjson'), `${batch('1:1', [2])}\n`);
      await writeFile(join(dir.path, 'c', 'spool'), 'not a journal\n');
      const sent = await sentFromFolder(join(dir.path, 'c'));
      expect([...sent.numbers]).toEqual([Number(to(1)), Number(to(2))]);
    } finally {
      await dir.remove();
    }
  });
});
