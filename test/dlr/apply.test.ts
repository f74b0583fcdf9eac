// Folding a log into a report: reading logs (ours and foreign ones), matching, and respecting the lock.
import { readFile, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { foldIntoReport, readLogInto } from '../../src/dlr/apply.js';
import { DeliveryBook } from '../../src/dlr/matching.js';
import { UsageError } from '../../src/shared/errors.js';
import { acquireLock, lockPath } from '../../src/journal/lock.js';
import { parseCsv, tempDir } from '../helpers/files.js';

let dir: Awaited<ReturnType<typeof tempDir>>;
let report: string;
beforeEach(async () => {
  dir = await tempDir();
  report = join(dir.path, 'r.csv');
  await writeFile(
    report,
    'row,to,messageId,outcome,statusCode\n1,4741000001,a,accepted,0\n2,4741000002,b,accepted,0\n3,4741000003,a,accepted,0\n',
  );
});
afterEach(() => dir.remove());

async function logOf(lines: string[]): Promise<string> {
  const path = join(dir.path, 'log.ndjson');
  await writeFile(path, lines.join('\n') + '\n');
  return path;
}

describe('readLogInto', () => {
  it("reads the receiver's lines and foreign NDJSON alike, skipping malformed lines", async () => {
    const log = await logOf([
      '{"receivedAt":"2025-03-01T12:00:00.000Z","method":"GET","path":"/dlr","messageId":"a","status":"ENROUTE","params":{}}',
      '{"receivedAt":"2025-03-01T12:00:01.000Z","method":"GET","path":"/","malformed":"no message id (msgid or MessageId)","params":{}}',
      '{"MessageId":"a","Status":"DELIVRD","Timestamp":"20250301120500"}',
      '{"params":{"msgid":"b","status":"EXPIRED"},"receivedAt":"2025-03-01T12:00:02.000Z"}',
      '{"msgid":"c"}',
      'not json',
      '[]',
    ]);
    const book = new DeliveryBook();
    const counts = await readLogInto(log, book);
    expect(counts).toEqual({
      reports: 4,
      refused: { unsigned: 0, 'bad signature': 0, 'unknown id': 0, 'bad status': 0 },
      withoutStatus: 1,
      malformed: 3,
      malformedLines: [2, 6, 7],
    });
    expect(book.get('a')).toMatchObject({ status: 'DELIVRD', at: '2025-03-01T12:05:00Z' });
    expect(book.get('b')).toMatchObject({ status: 'EXPIRED', at: '2025-03-01T12:00:02Z' });
    expect(book.get('c')).toBeUndefined();
  });

  it('refuses a missing log with a usage error', async () => {
    await expect(readLogInto(join(dir.path, 'none.ndjson'), new DeliveryBook())).rejects.toThrow(
      UsageError,
    );
  });
});

describe('foldIntoReport', () => {
  it('sets every row of a MessageId and counts the ids it could not match', async () => {
    const book = new DeliveryBook();
    await readLogInto(
      await logOf(['{"msgid":"a","status":"DELIVRD"}', '{"msgid":"x","status":"DELIVRD"}']),
      book,
    );
    const result = await foldIntoReport(report, book);
    expect(result).toEqual({
      kind: 'updated',
      rows: 3,
      changedRows: 2,
      written: true,
      matched: 1,
      unmatched: 1,
      unmatchedSample: ['x'],
      confirmed: 0,
      confirmedRows: [],
      identity: expect.any(String) as string,
    });
    const rows = parseCsv(await readFile(report, 'utf8'));
    expect(rows.map((r) => [r.row, r.messageId, r.deliveryStatus])).toEqual([
      ['1', 'a', 'DELIVRD'],
      ['2', 'b', ''],
      ['3', 'a', 'DELIVRD'],
    ]);
  });

  it('does not let an older report replace a later one already in the report', async () => {
    const later = new DeliveryBook();
    await readLogInto(
      await logOf(['{"msgid":"a","status":"DELIVRD","timestamp":"20250301120500"}']),
      later,
    );
    await foldIntoReport(report, later);
    const older = new DeliveryBook();
    await readLogInto(
      await logOf(['{"msgid":"a","status":"ENROUTE","timestamp":"20250301120000"}']),
      older,
    );
    expect(await foldIntoReport(report, older)).toMatchObject({
      kind: 'updated',
      changedRows: 0,
      written: false,
    });
    expect(parseCsv(await readFile(report, 'utf8'))[0]?.deliveryStatus).toBe('DELIVRD');
  });

  it('defers while a run holds the lock, and leaves the lock as it found it', async () => {
    const book = new DeliveryBook();
    await readLogInto(await logOf(['{"msgid":"a","status":"DELIVRD"}']), book);
    const lock = await acquireLock(lockPath(report));
    try {
      expect(await foldIntoReport(report, book)).toMatchObject({
        kind: 'deferred',
        reason: 'locked',
      });
      expect(await readFile(lockPath(report), 'utf8')).toContain(`"pid":${process.pid}`);
    } finally {
      await lock.release();
    }
    expect(await foldIntoReport(report, book)).toMatchObject({ kind: 'updated', matched: 1 });
    // Its own lock is released after the fold.
    await expect(readFile(lockPath(report))).rejects.toThrow(/ENOENT/);
  });

  // A fold never says a send's "nothing was sent": a live holder here is waited for, and only one
  // on another host, whose process cannot be seen, may be gone and its lock deleted.
  it.each([
    [hostname(), process.ppid, ''],
    ['other-host', 4242, '; if no sms-send runs on other-host any more, delete LOCK'],
  ])('says in its own words who holds the report (%s)', async (host, pid, gone) => {
    const book = new DeliveryBook();
    await readLogInto(await logOf(['{"msgid":"a","status":"DELIVRD"}']), book);
    const since = '2026-01-01T00:00:00.000Z';
    await writeFile(lockPath(report), JSON.stringify({ pid, host, since }));
    expect(await foldIntoReport(report, book)).toEqual({
      kind: 'deferred',
      reason: 'locked',
      message: `another sms-send is writing to it (pid ${pid} on ${host}, since ${since}${gone.replace('LOCK', lockPath(report))})`,
    });
  });

  it('defers when the report does not exist', async () => {
    expect(await foldIntoReport(join(dir.path, 'none.csv'), new DeliveryBook())).toMatchObject({
      kind: 'deferred',
      reason: 'missing',
    });
  });
});

describe('a delivery report settles an unknown row', () => {
  const rows = [
    { row: 1, to: '4741000001', messageId: 'u', outcome: 'unknown', error: 'HTTP 500' },
    { row: 2, to: '4741000002', messageId: 'f', outcome: 'failed', error: 'HTTP 503' },
    { row: 3, to: '4741000003', messageId: 'a', outcome: 'accepted', statusCode: 0 },
    { row: 4, to: '4741000004', messageId: 'n', outcome: 'unknown', error: 'HTTP 504' },
  ];
  const csv =
    'row,to,messageId,outcome,statusCode,statusDescription,error\n' +
    rows
      .map((r) =>
        [r.row, r.to, r.messageId, r.outcome, r.statusCode ?? '', '', r.error ?? ''].join(','),
      )
      .join('\n') +
    '\n';
  const formats: [string, string, (text: string) => Record<string, unknown>[]][] = [
    ['r.csv', csv, (text) => parseCsv(text)],
    ['r.json', JSON.stringify(rows), (text) => JSON.parse(text) as Record<string, unknown>[]],
    [
      'r.ndjson',
      rows.map((r) => JSON.stringify(r)).join('\n') + '\n',
      (text) =>
        text
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l) as Record<string, unknown>),
    ],
  ];

  it.each(formats)(
    '%s: unknown with a report → accepted, "confirmed by delivery report"',
    async (name, text, read) => {
      const path = join(dir.path, name);
      await writeFile(path, text);
      const book = new DeliveryBook();
      await readLogInto(
        await logOf(['u', 'f', 'a'].map((id) => `{"msgid":"${id}","status":"DELIVRD"}`)),
        book,
      );
      expect(await foldIntoReport(path, book)).toMatchObject({ confirmed: 1, changedRows: 3 });
      const after = read(await readFile(path, 'utf8'));
      expect(
        after.map((r) => [r['messageId'], r['outcome'], r['statusDescription'] ?? '', r['error']]),
      ).toEqual([
        ['u', 'accepted', 'confirmed by delivery report', 'HTTP 500'],
        // A failed request surely did not reach the gateway: a report for it changes no outcome.
        ['f', 'failed', '', 'HTTP 503'],
        ['a', 'accepted', '', name.endsWith('.csv') ? '' : undefined],
        // No report: still unknown.
        ['n', 'unknown', '', 'HTTP 504'],
      ]);
      // Folding again confirms nothing twice.
      expect(await foldIntoReport(path, book)).toMatchObject({ confirmed: 0, written: false });
    },
  );
});
