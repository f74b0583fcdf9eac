// decimal() writes every whole number as String() would, across the joins of its two tables.
import { describe, expect, it } from 'vitest';
import { decimal } from '../../src/shared/digits.js';

describe('decimal', () => {
  it.each([
    0,
    -0,
    1,
    9,
    10,
    99,
    100,
    999,
    1_000,
    9_999,
    10_000,
    10_001,
    10_010,
    10_100,
    19_999,
    20_000,
    99_999,
    100_000,
    1_000_001,
    12_345_678,
    99_990_000,
    99_999_999,
    100_000_000,
    100_000_001,
    2_147_483_647,
    2_147_483_648,
    4_294_967_296,
    Number.MAX_SAFE_INTEGER,
    2 ** 53,
    -1,
    -10_000,
    1.5,
    0.1,
    1e21,
    Number.NaN,
    Number.POSITIVE_INFINITY,
  ])('%s as String() writes it', (n) => {
    expect(decimal(n)).toBe(String(n));
  });

  it('agrees with String() on every number below 200,000 and on a stride to 100,000,000', () => {
    const wrong: number[] = [];
    for (let n = 0; n < 200_000; n++) if (decimal(n) !== String(n)) wrong.push(n);
    for (let n = 200_000; n < 100_000_000; n += 9_973) if (decimal(n) !== String(n)) wrong.push(n);
    expect(wrong).toEqual([]);
  });
});
