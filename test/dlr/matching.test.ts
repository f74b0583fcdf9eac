// Delivery reports as values: parameter names, timestamps, and which report for a MessageId wins.
import { describe, expect, it } from 'vitest';
import {
  DeliveryBook,
  deliveryOfRow,
  formatInstant,
  messageIdOfRow,
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

describe('parseTimestamp: the two shapes it reads, exactly', () => {
  const NOON = Date.UTC(2025, 2, 1, 12, 0, 0);

  it.each([
    ['ISO 8601 with a space for the T', '2025-03-01 12:00:00Z', NOON],
    ['ISO 8601 to the minute', '2025-03-01T12:00Z', NOON],
    ['yyyymmddhhmmss with blanks around it', ' 20250301120000 ', NOON],
    ['ISO 8601 with blanks around it', '\t2025-03-01T12:00:00Z ', NOON],
    [
      'ISO 8601 without a zone, in local time',
      '2025-03-01T12:00:00',
      Date.parse('2025-03-01T12:00:00'),
    ],
  ])('reads %s', (_name, raw, ms) => {
    expect(parseTimestamp(raw)).toBe(ms);
  });

  it.each([
    ['fifteen digits', '202503011200000'],
    ['thirteen digits', '2025030112000'],
    ['fourteen digits after a letter', 'x20250301120000'],
    ['fourteen digits and a letter', '20250301120000x'],
    ['an ISO date after a letter', 'x2025-03-01T12:00:00Z'],
    ['an ISO date without a time', '2025-03-01'],
    ['an ISO date-time that is no date (month 13)', '2025-13-01T12:00:00Z'],
    ['an ISO date-time with a letter for the T', '2025-03-01X12:00:00Z'],
  ])('refuses %s', (_name, raw) => {
    expect(parseTimestamp(raw)).toBeUndefined();
  });
});

describe('supersedes: timestamps first, arrival order when they cannot decide', () => {
  const at = (time: number | undefined, order: number) => ({ status: 's', at: '', time, order });

  it.each([
    ['a later time arrived earlier', at(20, 1), at(10, 2), true],
    ['an earlier time arrived later', at(10, 2), at(20, 1), false],
    ['the same time, arrived later', at(10, 2), at(10, 1), true],
    ['the same time, arrived earlier', at(10, 1), at(10, 2), false],
    ['no time of its own, arrived later', at(undefined, 2), at(10, 1), true],
    ['no time of its own, arrived earlier', at(undefined, 1), at(10, 2), false],
    ['a time against none, arrived earlier', at(30, 1), at(undefined, 2), false],
    ['a time against none, arrived later', at(30, 2), at(undefined, 1), true],
    ['the same delivery', at(10, 1), at(10, 1), false],
  ])('%s → %s', (_name, candidate, current, expected) => {
    expect(supersedes(candidate, current)).toBe(expected);
  });
});

describe('DeliveryBook and rows: what is recorded', () => {
  it('the deliveredAt of a report without a timestamp: its arrival, or as received if unreadable', () => {
    const book = new DeliveryBook();
    book.add(report({ messageId: 'ms', receivedAt: '2025-03-01T12:00:00.250Z' }));
    book.add(report({ messageId: 'odd', receivedAt: 'at noon' }));
    expect(book.get('ms')).toEqual({
      status: 'DELIVRD',
      at: '2025-03-01T12:00:00.250Z',
      time: undefined,
      order: 1,
    });
    expect(book.get('odd')).toEqual({
      status: 'DELIVRD',
      at: 'at noon',
      time: undefined,
      order: 2,
    });
  });

  it('a readable timestamp is recorded in ISO 8601 with its time', () => {
    const book = new DeliveryBook();
    expect(book.add(report({ timestamp: '20250301120500' }))).toBe(true);
    expect(book.get('m1')).toEqual({
      status: 'DELIVRD',
      at: '2025-03-01T12:05:00Z',
      time: Date.UTC(2025, 2, 1, 12, 5, 0),
      order: 1,
    });
  });

  it('keep() takes the delivery of a row; a later one replaces it, an older one does not', () => {
    const book = new DeliveryBook();
    const kept = { status: 'ENROUTE', at: '2025-03-01T12:05:00Z', time: 500, order: 0 };
    book.keep('m1', kept);
    expect(book.get('m1')).toBe(kept);
    book.keep('m1', { status: 'OLDER', at: '', time: 100, order: 0 });
    expect(book.get('m1')).toBe(kept);
    const later = { status: 'DELIVRD', at: '', time: 900, order: 0 };
    book.keep('m1', later);
    expect(book.get('m1')).toBe(later);
    book.add(report({ messageId: 'm2' }));
    expect([...book.ids()]).toEqual(['m1', 'm2']);
    expect(book.size).toBe(2);
  });

  it('deliveryOfRow reads the status, deliveredAt and its time, at arrival order 0', () => {
    expect(deliveryOfRow({ deliveryStatus: ' DELIVRD ', deliveredAt: '20250301120500' })).toEqual({
      status: 'DELIVRD',
      at: '20250301120500',
      time: Date.UTC(2025, 2, 1, 12, 5, 0),
      order: 0,
    });
    expect(deliveryOfRow({ deliveryStatus: 'EXPIRED' })).toEqual({
      status: 'EXPIRED',
      at: '',
      time: undefined,
      order: 0,
    });
    expect(deliveryOfRow({ deliveryStatus: 'EXPIRED', deliveredAt: 'soon' })).toEqual({
      status: 'EXPIRED',
      at: 'soon',
      time: undefined,
      order: 0,
    });
  });

  it('messageIdOfRow: the trimmed id, a number as text, nothing for an empty cell', () => {
    expect(messageIdOfRow({ messageId: ' m-1 ' })).toBe('m-1');
    expect(messageIdOfRow({ messageId: 42 })).toBe('42');
    expect(messageIdOfRow({ messageId: Number.NaN })).toBeUndefined();
    expect(messageIdOfRow({ messageId: '' })).toBeUndefined();
    expect(messageIdOfRow({})).toBeUndefined();
  });

  it('reportFromParams takes the first usable value of a parameter named twice', () => {
    const parsed = reportFromParams({ msgid: ' ', MessageId: 'b', status: '', STATUS: 'X' }, AT);
    expect(parsed).toEqual({
      ok: true,
      report: {
        messageId: 'b',
        status: 'X',
        timestamp: undefined,
        transactionId: undefined,
        receivedAt: AT,
      },
    });
  });
});
