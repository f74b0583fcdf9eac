// groupDigits writes whole numbers exactly as en-US toLocaleString() does, without ICU.
import { describe, expect, it } from 'vitest';
import { groupDigits } from '../../src/shared/count.js';

const EDGES = [0, 1, 9, 10, 99, 100, 999, 1000, 1001, 9999, 10_000, 99_999, 100_000, 999_999];
const MORE = [1_000_000, 1_234_567, 12_345_678, 123_456_789, 2 ** 31, 2 ** 53 - 1];

describe('groupDigits', () => {
  it.each([...EDGES, ...MORE, ...[...EDGES, ...MORE].map((n) => -n).filter((n) => n !== 0)])(
    '%d as en-US writes it',
    (n) => {
      expect(groupDigits(n)).toBe(n.toLocaleString('en-US'));
    },
  );

  it('agrees with en-US on 20,000 whole numbers of every length', () => {
    let seed = 7;
    const next = () => (seed = (seed * 48271) % 2147483647);
    for (let i = 0; i < 20_000; i++) {
      const n = Math.floor((next() / 2147483647) * 10 ** (1 + (i % 15)));
      expect(groupDigits(n)).toBe(n.toLocaleString('en-US'));
    }
  });

  it('leaves fractions and non-finite numbers to ICU', () => {
    expect(groupDigits(1234.5678)).toBe('1,234.568');
    expect(groupDigits(Number.NaN)).toBe('NaN');
    expect(groupDigits(2 ** 60)).toBe((2 ** 60).toLocaleString('en-US'));
  });
});
