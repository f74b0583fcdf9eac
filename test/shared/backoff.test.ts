// backoffDelay: exponential backoff with full jitter, capped; random injected so the bounds are exact.
import { describe, expect, it } from 'vitest';
import { backoffDelay, DEFAULT_BACKOFF } from '../../src/shared/backoff.js';

const OPTIONS = { baseMs: 500, capMs: 30_000 };
const JUST_BELOW_ONE = 1 - Number.EPSILON;

describe('backoffDelay', () => {
  it('defaults to a 500 ms base and a 30 s cap', () => {
    expect(DEFAULT_BACKOFF).toEqual({ baseMs: 500, capMs: 30_000 });
  });

  it.each([
    // [attempt, ceiling = min(cap, base × 2^(attempt-1))]
    [1, 500],
    [2, 1_000],
    [3, 2_000],
    [4, 4_000],
    [5, 8_000],
    [6, 16_000],
    [7, 30_000], // 32 000 capped
    [8, 30_000],
    [20, 30_000],
    [2_000, 30_000], // 2^1999 overflows to Infinity: still the cap
  ])('attempt %d: full jitter over [0, %d)', (attempt, ceiling) => {
    expect(backoffDelay(attempt, OPTIONS, () => 0)).toBe(0);
    expect(backoffDelay(attempt, OPTIONS, () => 0.5)).toBe(ceiling / 2);
    expect(backoffDelay(attempt, OPTIONS, () => JUST_BELOW_ONE)).toBe(ceiling - 1);
  });

  it.each([
    [0.1, 1, 50],
    [0.25, 3, 500],
    [0.999, 2, 999],
    [0.3333, 4, 1_333],
  ])('random %d on attempt %d → %d ms (rounded down)', (r, attempt, ms) => {
    expect(backoffDelay(attempt, OPTIONS, () => r)).toBe(ms);
  });

  it('uses the default options when given undefined', () => {
    expect(backoffDelay(3, undefined, () => 0.5)).toBe(1_000);
    expect(backoffDelay(10, undefined, () => 0.5)).toBe(15_000);
  });

  it('honours other bases and caps', () => {
    expect(backoffDelay(1, { baseMs: 100, capMs: 250 }, () => 0.5)).toBe(50);
    expect(backoffDelay(3, { baseMs: 100, capMs: 250 }, () => 0.5)).toBe(125);
    expect(backoffDelay(5, { baseMs: 1_000, capMs: 1_000 }, () => JUST_BELOW_ONE)).toBe(999);
  });

  it('calls random exactly once per delay', () => {
    let calls = 0;
    backoffDelay(4, OPTIONS, () => {
      calls++;
      return 0.5;
    });
    expect(calls).toBe(1);
  });

  it('stays within [0, ceiling) for every attempt and many random values', () => {
    for (let attempt = 1; attempt <= 12; attempt++) {
      const ceiling = Math.min(30_000, 500 * 2 ** (attempt - 1));
      for (let i = 0; i < 100; i++) {
        const delay = backoffDelay(attempt, OPTIONS, () => i / 100);
        expect(delay).toBe(Math.floor((i / 100) * ceiling));
        expect(Number.isInteger(delay)).toBe(true);
      }
    }
  });
});
