// The settled rows' words: a 16-bit word a row where its page's lines are near, 32-bit where not.
import { describe, expect, it } from 'vitest';
import { RowWords } from '../../src/journal/row-words.js';

type Set = [row: number, group: number, code: number];

describe('RowWords', () => {
  it.each<[string, Set[]]>([
    ['one row', [[1, 0, 1]]],
    [
      'a batch of rows on one line, then the next',
      [
        [1, 0, 1],
        [2, 0, 2],
        [3, 1, 3],
      ],
    ],
    [
      'rows on pages far apart',
      [
        [5, 0, 1],
        [8191, 1, 2],
        [8192, 2, 3],
        [10_000_000, 3, 7],
      ],
    ],
    [
      'a row resent on a line far past its page’s first, which widens the page',
      [
        [10, 4, 1],
        [11, 4, 6],
        [12, 4, 4],
        [11, 4 + 2 ** 13, 1],
        [13, 2 ** 28, 2],
      ],
    ],
    [
      'the last line a narrow word names, and the first it does not',
      [
        [20, 100, 1],
        [21, 100 + 2 ** 13 - 1, 2],
        [22, 100 + 2 ** 13, 3],
      ],
    ],
  ])('%s: each row gives back its last group and code', (_what, sets) => {
    const words = new RowWords();
    const last = new Map<number, number>();
    for (const [row, group, code] of sets) {
      words.set(row, group, code);
      last.set(row, group * 8 + code);
    }
    for (const [row, word] of last) expect(words.get(row)).toBe(word);
    for (const row of [0, 4, 6, 9, 14, 8190, 8193, 9_999_999, 10_000_001]) {
      expect(words.get(row)).toBe(last.get(row) ?? 0);
    }
    const inOrder = [...last].sort((a, b) => a[0] - b[0]).map(([, word]) => word);
    expect([...words.words()]).toEqual(inOrder);
  });
});
