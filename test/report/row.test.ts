// Report rows: CSV cells and JSON rows from one RowResult (formula escaping: report-format.test.ts).
import { describe, expect, it } from 'vitest';
import { junitCase } from '../../src/report/junit.js';
import {
  reportColumns,
  formatExtraInfo,
  REPORT_COLUMNS,
  toCsvCells,
  toJsonRow,
} from '../../src/report/row.js';
import type { RowResult } from '../../src/message/outcome.js';

const ACCEPTED: RowResult = {
  row: 3,
  to: '4741234567',
  messageId: 'abcdef0123-3',
  outcome: 'accepted',
  statusCode: 0,
  statusDescription: 'OK',
  transactionId: 'T-77',
  extraInfo: { server: 'smsgw1', subnumref: '19331234567891' },
  attempts: 1,
  segments: 2,
  encoding: 'UCS-2',
};

const INVALID: RowResult = {
  row: 4,
  to: '+47 123',
  messageId: 'abcdef0123-4',
  outcome: 'invalid',
  attempts: 0,
  error: 'to: "+47 123" not a mobile number (too short)',
};

const NORMALIZED: RowResult = { ...ACCEPTED, segments: 1, encoding: 'GSM-7', normalized: 3 };

describe('REPORT_COLUMNS', () => {
  it('lists the report columns in the documented order', () => {
    expect(REPORT_COLUMNS).toEqual([
      'row',
      'to',
      'messageId',
      'outcome',
      'statusCode',
      'statusDescription',
      'transactionId',
      'extraInfo',
      'attempts',
      'error',
      'segments',
      'encoding',
    ]);
  });

  it('adds normalized last, only for a run with --gsm-normalize', () => {
    expect(reportColumns({ normalized: false })).toEqual(REPORT_COLUMNS);
    expect(reportColumns({ normalized: true })).toEqual([...REPORT_COLUMNS, 'normalized']);
  });
});

describe('toCsvCells', () => {
  it('writes every column, extraInfo as key=value pairs, StatusCode 0 as "0"', () => {
    expect(toCsvCells(ACCEPTED)).toEqual([
      '3',
      '4741234567',
      'abcdef0123-3',
      'accepted',
      '0',
      'OK',
      'T-77',
      'server=smsgw1; subnumref=19331234567891',
      '1',
      '',
      '2',
      'UCS-2',
    ]);
  });

  it('writes normalized only among the columns asked for', () => {
    expect(toCsvCells(NORMALIZED).slice(-2)).toEqual(['1', 'GSM-7']);
    expect(toCsvCells(NORMALIZED, reportColumns({ normalized: true })).slice(-3)).toEqual([
      '1',
      'GSM-7',
      '3',
    ]);
    expect(toCsvCells(ACCEPTED, reportColumns({ normalized: true })).at(-1)).toBe('');
  });

  it('leaves absent values as empty cells', () => {
    expect(toCsvCells(INVALID)).toEqual([
      '4',
      '+47 123',
      'abcdef0123-4',
      'invalid',
      '',
      '',
      '',
      '',
      '0',
      'to: "+47 123" not a mobile number (too short)',
      '',
      '',
    ]);
  });

  it('does not escape formulas itself (the CSV layout does)', () => {
    const cells = toCsvCells({ ...INVALID, to: '=HYPERLINK("x")' });
    expect(cells[1]).toBe('=HYPERLINK("x")');
  });
});

describe('toJsonRow', () => {
  it('keeps the columns in order, numbers as numbers and extraInfo as an object', () => {
    const row = toJsonRow(ACCEPTED);
    expect(row).toEqual({
      row: 3,
      to: '4741234567',
      messageId: 'abcdef0123-3',
      outcome: 'accepted',
      statusCode: 0,
      statusDescription: 'OK',
      transactionId: 'T-77',
      extraInfo: { server: 'smsgw1', subnumref: '19331234567891' },
      attempts: 1,
      segments: 2,
      encoding: 'UCS-2',
    });
    expect(Object.keys(row)).toEqual([
      'row',
      'to',
      'messageId',
      'outcome',
      'statusCode',
      'statusDescription',
      'transactionId',
      'extraInfo',
      'attempts',
      'segments',
      'encoding',
    ]);
  });

  it('carries normalized, a number, when the run writes that column', () => {
    expect(toJsonRow(NORMALIZED).normalized).toBeUndefined();
    expect(toJsonRow(NORMALIZED, reportColumns({ normalized: true }))).toMatchObject({
      segments: 1,
      encoding: 'GSM-7',
      normalized: 3,
    });
  });

  it('omits absent values', () => {
    expect(toJsonRow(INVALID)).toEqual({
      row: 4,
      to: '+47 123',
      messageId: 'abcdef0123-4',
      outcome: 'invalid',
      attempts: 0,
      error: 'to: "+47 123" not a mobile number (too short)',
    });
  });

  it('carries no fields beyond the report columns', () => {
    const extra = { ...ACCEPTED, password: 'secret' } as RowResult;
    expect(Object.keys(toJsonRow(extra))).not.toContain('password');
  });
});

describe('a follow-up campaign row (originalMessageId)', () => {
  const linked: RowResult = { ...ACCEPTED, originalMessageId: 'f00dcafe12-3' };

  it('is the last column of a follow-up report, in CSV and JSON, and of no other report', () => {
    const columns = reportColumns({ normalized: false, followUp: true });
    expect(columns).toEqual([...REPORT_COLUMNS, 'originalMessageId']);
    expect(reportColumns({ normalized: true, followUp: true }).slice(-2)).toEqual([
      'normalized',
      'originalMessageId',
    ]);
    expect(toCsvCells(linked, columns).at(-1)).toBe('f00dcafe12-3');
    expect(toJsonRow(linked, columns)['originalMessageId']).toBe('f00dcafe12-3');
    expect(toCsvCells(linked)).toHaveLength(REPORT_COLUMNS.length);
    expect(toJsonRow(linked)).not.toHaveProperty('originalMessageId');
  });

  it('is named in the JUnit test case', () => {
    expect(junitCase(linked, 's')).toContain(
      'name="row 3 to 4741234567 (abcdef0123-3, re-sending f00dcafe12-3)"',
    );
    expect(junitCase(ACCEPTED, 's')).toContain('name="row 3 to 4741234567 (abcdef0123-3)"');
  });
});

describe('formatExtraInfo', () => {
  it.each([
    [{}, ''],
    [{ server: 'smsgw1' }, 'server=smsgw1'],
    [{ subnumref: '1933', server: 'smsgw1' }, 'subnumref=1933; server=smsgw1'],
    [{ '': '', b: 'x' }, '=; b=x'],
    [{ z: '1', 2: 'two', 1: 'one' }, '1=one; 2=two; z=1'],
    [{ n: 5, t: true } as unknown as Record<string, string>, 'n=5; t=true'],
  ])('%j → %j', (info, text) => {
    expect(formatExtraInfo(info)).toBe(text);
  });

  it('writes what Object.entries holds, in its order, and nothing inherited', () => {
    const inherited = Object.assign(Object.create({ proto: 'no' }) as Record<string, string>, {
      own: 'yes',
    });
    expect(formatExtraInfo(inherited)).toBe('own=yes');
    const parsed = JSON.parse('{"__proto__":"p","b":"1","10":"ten","a":"2"}') as Record<
      string,
      string
    >;
    expect(formatExtraInfo(parsed)).toBe(
      Object.entries(parsed)
        .map(([key, value]) => `${key}=${value}`)
        .join('; '),
    );
  });
});
