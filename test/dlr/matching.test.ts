// Delivery reports as values: parameter names, timestamps, and which report for a MessageId wins.
import { describe, expect, it } from 'vitest';
import {
  DeliveryBook,
  deliveryOfRow,
  formatInstant,
  parseTimestamp,
  reportFromParams,
  supersedes,
  type DeliveryReport,
} from '../../src/dlr/matching.js';

const AT = '2025-03-01T12:00:00.000Z';

function report(overrides: Partial<DeliveryReport> = {}): DeliveryReport {
  return {
    messageId: 'm1',
    status: 'DELIVRD',
    timestamp: undefined,
    transactionId: undefined,
    receivedAt: AT,
    ...overrides,
  };
}

describe('reportFromParams', () => {
  it.each([
    [{ msgid: 'a' }, 'a'],
    [{ MSGID: 'a' }, 'a'],
    [{ MessageId: 'a' }, 'a'],
    [{ messageId: 'a' }, 'a'],
    [{ messageid: ' a ' }, 'a'],
    [{ MessageId: 42 }, '42'],
  ])('reads the message id from %j', (params, id) => {
    const parsed = reportFromParams(params, AT);
    expect(parsed.ok && parsed.report.messageId).toBe(id);
  });

  it('reads status, timestamp and TransactionId in any case', () => {
    expect(
      reportFromParams(
        { MsgId: 'x', STATUS: 'EXPIRED', TimeStamp: '20250301120000', transactionid: 't-1' },
        AT,
      ),
    ).toEqual({
      ok: true,
      report: {
        messageId: 'x',
        status: 'EXPIRED',
        timestamp: '20250301120000',
        transactionId: 't-1',
        receivedAt: AT,
      },
    });
  });

  it('accepts a report with nothing but the message id', () => {
    expect(reportFromParams({ msgid: 'x' }, AT)).toMatchObject({
      ok: true,
      report: { status: undefined, timestamp: undefined },
    });
  });

  it.each([
    [{}],
    [{ msgid: '' }],
    [{ msgid: '   ' }],
    [{ id: 'x', status: 'DELIVRD' }],
    [{ msgid: {} }],
  ])('refuses %j: no message id', (params) => {
    expect(reportFromParams(params, AT)).toEqual({
      ok: false,
      reason: 'no message id (msgid or MessageId)',
    });
  });
});

describe('parseTimestamp', () => {
  it.each([
    ['20250301120000', Date.UTC(2025, 2, 1, 12, 0, 0)],
    ['2025-03-01T12:00:00Z', Date.UTC(2025, 2, 1, 12, 0, 0)],
    ['2025-03-01T13:00:00+01:00', Date.UTC(2025, 2, 1, 12, 0, 0)],
  ])('reads %s', (raw, ms) => {
    expect(parseTimestamp(raw)).toBe(ms);
  });

  it.each([
    '',
    'yesterday',
    '20251301120000',
    '20250230120000',
    '2503011200',
    '1740830400',
    '1740830400123',
  ])('does not guess at %j', (raw) => {
    expect(parseTimestamp(raw)).toBeUndefined();
  });

  it('formats instants as ISO 8601 without empty milliseconds', () => {
    expect(formatInstant(Date.UTC(2025, 2, 1, 12, 0, 0))).toBe('2025-03-01T12:00:00Z');
    expect(formatInstant(Date.UTC(2025, 2, 1, 12, 0, 0) + 5)).toBe('2025-03-01T12:00:00.005Z');
  });
});

describe('DeliveryBook', () => {
  it('keeps the later report by timestamp, whatever the order of arrival', () => {
    const book = new DeliveryBook();
    book.add(report({ status: 'DELIVRD', timestamp: '20250301120500' }));
    book.add(report({ status: 'ENROUTE', timestamp: '20250301120000' }));
    expect(book.get('m1')).toMatchObject({ status: 'DELIVRD', at: '2025-03-01T12:05:00Z' });
  });

  it('keeps the later report by arrival when timestamps are missing, equal or unreadable', () => {
    const book = new DeliveryBook();
    book.add(report({ messageId: 'a', status: 'ENROUTE' }));
    book.add(report({ messageId: 'a', status: 'DELIVRD' }));
    book.add(report({ messageId: 'b', status: 'ENROUTE', timestamp: '20250301120000' }));
    book.add(report({ messageId: 'b', status: 'DELIVRD', timestamp: '20250301120000' }));
    book.add(report({ messageId: 'c', status: 'ENROUTE', timestamp: 'soon' }));
    book.add(report({ messageId: 'c', status: 'UNDELIV', timestamp: '20250301120000' }));
    expect([book.get('a')?.status, book.get('b')?.status, book.get('c')?.status]).toEqual([
      'DELIVRD',
      'DELIVRD',
      'UNDELIV',
    ]);
    expect(book.size).toBe(3);
  });

  it('records the raw timestamp when it cannot be read, and the arrival time when there is none', () => {
    const book = new DeliveryBook();
    book.add(report({ messageId: 'raw', timestamp: 'soon' }));
    book.add(report({ messageId: 'none' }));
    expect(book.get('raw')?.at).toBe('soon');
    expect(book.get('none')?.at).toBe('2025-03-01T12:00:00Z');
  });

  it('takes nothing from a report without a status', () => {
    const book = new DeliveryBook();
    expect(book.add(report({ status: undefined }))).toBe(false);
    expect(book.get('m1')).toBeUndefined();
  });
});

describe('supersedes', () => {
  it('lets what a row already records stand against an older report', () => {
    const recorded = deliveryOfRow({
      deliveryStatus: 'DELIVRD',
      deliveredAt: '2025-03-01T12:05:00Z',
    });
    const book = new DeliveryBook();
    book.add(report({ status: 'ENROUTE', timestamp: '20250301120000' }));
    expect(recorded).toBeDefined();
    expect(supersedes(book.get('m1')!, recorded!)).toBe(false);
  });

  it('replaces what a row records when the report has no comparable time', () => {
    const recorded = deliveryOfRow({ deliveryStatus: 'ENROUTE', deliveredAt: '' });
    const book = new DeliveryBook();
    book.add(report({ status: 'DELIVRD' }));
    expect(supersedes(book.get('m1')!, recorded!)).toBe(true);
  });

  it('reads no delivery from a row without a status', () => {
    expect(deliveryOfRow({ deliveryStatus: '', deliveredAt: 'x' })).toBeUndefined();
    expect(deliveryOfRow({ messageId: 'm1' })).toBeUndefined();
  });
});
