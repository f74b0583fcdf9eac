// parseDuration: seconds by default, units ms/s/m/h/d, anything else undefined.
import { describe, expect, it } from 'vitest';
import { parseDuration } from '../../src/shared/duration.js';

describe('parseDuration', () => {
  it.each([
    ['500ms', 500],
    ['30s', 30_000],
    ['30', 30_000],
    ['2m', 120_000],
    ['1h', 3_600_000],
    ['1d', 86_400_000],
    ['1.5s', 1_500],
    ['0.25m', 15_000],
    ['0', 0],
    ['0s', 0],
    [' 2 m ', 120_000],
    ['30S', 30_000],
    ['500MS', 500],
    ['2H', 7_200_000],
  ])('%j → %d ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each([
    [30, 30_000],
    [0, 0],
    [1.5, 1_500],
  ])('the number %d is seconds → %d ms', (seconds, ms) => {
    expect(parseDuration(seconds)).toBe(ms);
  });

  it.each(['', ' ', 'abc', '-1s', '-1', '1h30m', '2 hours', '2w', 's', '.5s', '1,5s', '1e3'])(
    '%j is not a duration',
    (text) => {
      expect(parseDuration(text)).toBeUndefined();
    },
  );

  it.each([-1, Number.NaN, Number.POSITIVE_INFINITY])('the number %d is not a duration', (n) => {
    expect(parseDuration(n)).toBeUndefined();
  });
});
