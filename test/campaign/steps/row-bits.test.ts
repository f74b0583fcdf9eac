// The rows a kept spool holds messages for, a bit each: what a resume counts as left to send.
import { describe, expect, it } from 'vitest';
import { RowBits } from '../../../src/campaign/steps/row-bits.js';

describe('RowBits', () => {
  it.each([
    ['no rows', []],
    ['row 1', [1]],
    ['rows at each bit of a byte', [8, 9, 10, 11, 12, 13, 14, 15]],
    ['rows far past the first buffer', [3, 8191, 8192, 1_000_003, 10_000_000]],
    ['a row given twice', [5, 5, 6]],
  ])('holds %s, and gives them back through its text', (_what, rows: number[]) => {
    const bits = RowBits.empty();
    for (const row of rows) bits.add(row);
    const distinct = [...new Set(rows)].sort((a, b) => a - b);
    for (const copy of [bits, RowBits.fromBase64(bits.toBase64())]) {
      const held: number[] = [];
      expect(copy.count((row) => (held.push(row), true))).toBe(distinct.length);
      expect(held).toEqual(distinct);
      for (const row of distinct) expect(copy.has(row)).toBe(true);
      for (const row of [0, 2, 7, 16, 9_999_999, 10_000_001]) {
        expect(copy.has(row)).toBe(distinct.includes(row));
      }
    }
  });

  it('counts the rows a test takes', () => {
    const bits = RowBits.empty();
    for (let row = 1; row <= 100; row++) if (row % 4 !== 0) bits.add(row);
    expect(bits.count(() => true)).toBe(75);
    expect(bits.count((row) => row > 50)).toBe(37);
    expect(bits.count(() => false)).toBe(0);
  });

  it('writes no bytes past its last row', () => {
    const bits = RowBits.empty();
    bits.add(9);
    expect(Buffer.from(bits.toBase64(), 'base64')).toEqual(Buffer.from([0, 2]));
    expect(RowBits.empty().toBase64()).toBe('');
  });
});
