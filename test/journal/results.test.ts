// The compact store of settled results: every field comes back as it went in, whatever the row.
import { describe, expect, it } from 'vitest';
import { SettledResults, type SettledResult } from '../../src/journal/results.js';

const CASES: SettledResult[] = [
  {
    row: 1,
    outcome: 'accepted',
    attempts: 1,
    statusCode: 0,
    statusDescription: 'Accepted',
    transactionId: '5aa904481-800009',
    extraInfo: { server: 'sim1', subnumref: '997009990000800009' },
  },
  { row: 2, outcome: 'rejected', attempts: 2, statusCode: 3, statusDescription: 'Invalid MSISDN' },
  { row: 3, outcome: 'unknown', attempts: 1, error: 'HTTP 504 from the gateway' },
  { row: 4, outcome: 'failed', attempts: 4, error: 'ECONNREFUSED' },
  { row: 5, outcome: 'skipped', attempts: 0, error: 'suppressed (optouts.csv)' },
  { row: 6, outcome: 'invalid', attempts: 0, error: 'to: "x" is not a phone number' },
  {
    row: 7,
    outcome: 'accepted',
    attempts: 1,
    statusCode: 0,
    statusDescription: 'æøå "quoted" \u{1F600}',
  },
];

describe('SettledResults', () => {
  it.each(CASES.map((c) => [c.outcome, c.row, c]))(
    'gives back a %s result (row %d) field for field',
    (_o, _r, result) => {
      const results = new SettledResults();
      results.set(result);
      expect(results.get(result.row)).toEqual(result);
      expect(results.outcome(result.row)).toBe(result.outcome);
      expect(results.size).toBe(1);
    },
  );

  it('knows nothing of rows never set, and counts a row set again once, with its newest result', () => {
    const results = new SettledResults();
    results.set(CASES[3]!);
    results.set({ ...CASES[3]!, outcome: 'accepted', attempts: 5, error: undefined });
    expect(results.size).toBe(1);
    expect(results.get(4)).toEqual({ row: 4, outcome: 'accepted', attempts: 5 });
    expect(results.get(3)).toBeUndefined();
    expect(results.outcome(999_999)).toBeUndefined();
  });

  it('grows to any row, and lists outcomes in row order', () => {
    const results = new SettledResults();
    for (const row of [1_000_000, 3, 70_000, 1]) {
      results.set({ row, outcome: row === 3 ? 'rejected' : 'accepted', attempts: 1 });
    }
    expect(results.size).toBe(4);
    expect([...results.outcomes()]).toEqual(['accepted', 'rejected', 'accepted', 'accepted']);
    expect(results.get(1_000_000)).toEqual({ row: 1_000_000, outcome: 'accepted', attempts: 1 });
  });

  it('keeps every row set before it grows, at the first row past its initial room too', () => {
    const results = new SettledResults();
    results.set({ row: 1, outcome: 'rejected', attempts: 1, statusCode: 3 });
    results.set({ row: 1023, outcome: 'failed', attempts: 2, error: 'ECONNREFUSED' });
    results.set({ row: 1024, outcome: 'unknown', attempts: 1 });
    results.set({ row: 5000, outcome: 'skipped', attempts: 0 });
    expect([1, 1023, 1024, 5000].map((row) => results.outcome(row))).toEqual([
      'rejected',
      'failed',
      'unknown',
      'skipped',
    ]);
    expect(results.get(1)).toEqual({ row: 1, outcome: 'rejected', attempts: 1, statusCode: 3 });
    expect(results.get(1024)).toEqual({ row: 1024, outcome: 'unknown', attempts: 1 });
    expect(results.size).toBe(4);
    expect([...results.outcomes()]).toEqual(['rejected', 'failed', 'unknown', 'skipped']);
  });
});
