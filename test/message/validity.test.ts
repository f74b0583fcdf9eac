// normalizeValidity: 14-digit absolute timestamps checked, durations made absolute against `now` in UTC.
import { describe, expect, it } from 'vitest';
import { normalizeValidity } from '../../src/message/validity.js';
import { formatTimestamp } from '../../src/shared/timestamp.js';

const NOW = new Date(Date.UTC(2025, 5, 1, 12, 0, 0)); // 2025-06-01 12:00:00 UTC
const NOT_REAL = (text: string) => `${text} is not a real date and time (yyyymmddhhmmss)`;
const DIGITS_ONLY = 'must be yyyymmddhhmmss (14 digits) or a duration such as 2h';
const NOT_DURATION = 'must be yyyymmddhhmmss or a duration such as 30m, 2h or 1d';

describe('normalizeValidity: absolute', () => {
  it.each([
    '20250601130000',
    '20251231235959',
    '20240229120000', // leap day
    '20000229000000', // leap century
    '20260101000000',
  ])('%s is kept as it is', (text) => {
    expect(normalizeValidity(text, NOW)).toEqual({ ok: true, value: text });
  });

  it('trims surrounding whitespace', () => {
    expect(normalizeValidity(' 20250601130000 ', NOW)).toEqual({
      ok: true,
      value: '20250601130000',
    });
  });

  it.each([
    '20250230120000', // 30 February
    '20230229120000', // not a leap year
    '19000229120000', // 1900 was not a leap year
    '20251301000000', // month 13
    '20250001000000', // month 0
    '20250100000000', // day 0
    '20250431000000', // 31 April
    '20250101240000', // hour 24
    '20250101006000', // minute 60
    '20250101000060', // second 60
    '00990101000000', // year 99 is not 1999
  ])('%s is not a real date', (text) => {
    expect(normalizeValidity(text, NOW)).toEqual({ ok: false, reason: NOT_REAL(text) });
  });

  it.each(['2025060113000', '202506011300000', '90', '0'])(
    '%s: digits but not 14 of them',
    (text) => {
      expect(normalizeValidity(text, NOW)).toEqual({ ok: false, reason: DIGITS_ONLY });
    },
  );
});

describe('normalizeValidity: durations', () => {
  it.each([
    ['2h', NOW, '20250601140000'],
    ['30m', NOW, '20250601123000'],
    ['1d', NOW, '20250602120000'],
    ['90s', NOW, '20250601120130'],
    ['1.5h', NOW, '20250601133000'],
    [' 2 h ', NOW, '20250601140000'],
    ['2H', NOW, '20250601140000'],
    // Across a month end and a year end.
    ['2h', new Date(Date.UTC(2025, 0, 31, 23, 30, 0)), '20250201013000'],
    ['1d', new Date(Date.UTC(2024, 11, 31, 12, 0, 0)), '20250101120000'],
    ['1d', new Date(Date.UTC(2024, 1, 28, 6, 0, 0)), '20240229060000'],
  ])('%j from %s → %s', (text, now, value) => {
    expect(normalizeValidity(text, now)).toEqual({ ok: true, value });
  });

  it.each(['', '0m', '0h', '-2h', 'abc', '2 hours', '1h30m', '2w', 'h'])(
    '%j is refused',
    (text) => {
      expect(normalizeValidity(text, NOW)).toEqual({ ok: false, reason: NOT_DURATION });
    },
  );

  it('does not depend on the local time zone: the result is the UTC wall clock', () => {
    // 23:00 UTC plus 2h is 01:00 the next day in UTC whatever TZ this process runs in.
    const now = new Date('2025-03-30T23:00:00Z');
    expect(normalizeValidity('2h', now)).toEqual({ ok: true, value: '20250331010000' });
  });
});

describe('formatTimestamp', () => {
  it.each([
    ['2025-06-01T12:00:00Z', '20250601120000'],
    ['2025-01-02T03:04:05Z', '20250102030405'],
    ['1999-12-31T23:59:59.999Z', '19991231235959'],
  ])('%s → %s', (iso, text) => {
    expect(formatTimestamp(new Date(iso))).toBe(text);
  });
});
