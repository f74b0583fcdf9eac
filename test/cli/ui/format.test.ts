// The small formatters every renderer shares: durations and rates as a person reads them.
import { describe, expect, it } from 'vitest';
import { formatDuration, formatRate } from '../../../src/cli/ui/format.js';

describe('formatDuration', () => {
  it.each([
    [212, '212 ms'],
    [2500, '2.5 s'],
    [60_000, '1 min'],
    [61_000, '1 min 1 s'],
    [119_600, '2 min'],
    [3_599_000, '59 min 59 s'],
  ])('%i ms → %s', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });
});

describe('formatRate', () => {
  it.each([
    [0, '0.0 msg/s'],
    [12.34, '12.3 msg/s'],
    [1500.4, '1,500 msg/s'],
  ])('%d → %s', (rate, text) => {
    expect(formatRate(rate)).toBe(text);
  });
});
