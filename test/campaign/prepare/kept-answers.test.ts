// Answers a stopped run kept only in its report: which rows count as a gateway's answer, and how a
// resume takes them (checked against the spool's MessageIds, a torn last row left out).
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerOf, takeAnswersFromReport } from '../../../src/campaign/prepare/kept-answers.js';
import { emptyJournalState } from '../../../src/journal/journal.js';
import type { Entry } from '../../../src/validate/entries.js';
import { tempDir } from '../../helpers/files.js';

let dir: Awaited<ReturnType<typeof tempDir>>;
beforeAll(async () => {
  dir = await tempDir();
});
afterAll(() => dir.remove());

const accepted = {
  row: '7',
  messageId: 'm-7',
  outcome: 'accepted',
  statusCode: '0',
  statusDescription: 'Accepted',
  transactionId: 'T7',
  extraInfo: 'server=sim1; subnumref=997',
  attempts: '1',
};

describe('answerOf: a report row as the gateway answer it records', () => {
  it.each([
    ['an accepted CSV row', accepted, { outcome: 'accepted', statusCode: 0, transactionId: 'T7' }],
    [
      'a rejected JSON row, ExtraInfo an object',
      {
        ...accepted,
        outcome: 'rejected',
        statusCode: 120,
        attempts: 2,
        extraInfo: { server: 's' },
      },
      { outcome: 'rejected', statusCode: 120, attempts: 2, extraInfo: { server: 's' } },
    ],
  ])('%s', (_name, values, result) => {
    expect(answerOf(values)).toEqual({
      messageId: 'm-7',
      result: expect.objectContaining({ row: 7, ...result }) as unknown,
    });
  });

  it('reads CSV ExtraInfo back as written', () => {
    expect(answerOf(accepted)?.result.extraInfo).toEqual({ server: 'sim1', subnumref: '997' });
  });

  it.each([
    ['unknown', { outcome: 'unknown', statusCode: '' }],
    ['failed', { outcome: 'failed', statusCode: '' }],
    ['accepted with another StatusCode', { statusCode: '3' }],
    ['rejected with StatusCode 0', { outcome: 'rejected' }],
    ['no row number', { row: '' }],
    ['a row number that is not one', { row: '7x' }],
    ['no attempts (cut before the column)', { attempts: undefined }],
    ['no MessageId', { messageId: '' }],
    ['zeros from a crash', { transactionId: 'T\u0000\u0000' }],
  ])('none for %s', (_name, change) => {
    expect(answerOf({ ...accepted, ...change })).toBeUndefined();
  });
});

function spoolOf(...ids: [row: number, messageId: string][]) {
  const entries: Entry[] = ids.map(([row, messageId]) => ({
    kind: 'message',
    row,
    to: '4741000000',
    messageId,
    json: '{}',
  }));
  return async function* (keep?: (row: number) => boolean) {
    await Promise.resolve();
    yield entries.filter((entry) => keep?.(entry.row) !== false);
  };
}

const HEADER =
  'row,to,messageId,outcome,statusCode,statusDescription,transactionId,extraInfo,attempts,error,segments,encoding';
const line = (row: number, id: string, tx: string) =>
  `${row},4741000000,${id},accepted,0,Accepted,${tx},,1,,1,GSM-7`;

describe('takeAnswersFromReport', () => {
  it('settles rows in flight whose MessageId matches, and only those', async () => {
    const report = join(dir.path, 'kept.csv');
    await writeFile(
      report,
      [HEADER, line(1, 'm-1', 'T1'), line(2, 'other', 'T2'), line(3, 'm-3', 'T3'), ''].join('\n'),
    );
    const journal = emptyJournalState();
    journal.inFlight = new Map([
      [1, 1],
      [2, 1],
    ]);
    journal.unposted = new Set([1]);
    const taken = await takeAnswersFromReport(
      journal,
      report,
      spoolOf([1, 'm-1'], [2, 'm-2'], [3, 'm-3']),
    );
    // Row 2's row names another record; row 3 was not in flight (the journal has its word).
    expect(taken).toBe(1);
    expect(journal.results.get(1)).toMatchObject({ outcome: 'accepted', transactionId: 'T1' });
    expect(journal.results.outcome(2)).toBeUndefined();
    expect([...journal.inFlight.keys()]).toEqual([2]);
    expect(journal.unposted.size).toBe(0);
    expect([...(journal.adopted?.keys() ?? [])]).toEqual([1]);
  });

  it('leaves out a CSV last row without its newline: it may be cut mid-field', async () => {
    const report = join(dir.path, 'torn.csv');
    await writeFile(report, [HEADER, line(1, 'm-1', 'T1'), line(2, 'm-2', 'T2')].join('\n'));
    const journal = emptyJournalState();
    journal.inFlight = new Map([
      [1, 1],
      [2, 1],
    ]);
    expect(await takeAnswersFromReport(journal, report, spoolOf([1, 'm-1'], [2, 'm-2']))).toBe(1);
    expect(journal.results.outcome(2)).toBeUndefined();
  });

  it('takes nothing from a report that is gone, or one it cannot read back', async () => {
    const journal = emptyJournalState();
    journal.inFlight = new Map([[1, 1]]);
    const spool = spoolOf([1, 'm-1']);
    expect(await takeAnswersFromReport(journal, join(dir.path, 'gone.csv'), spool)).toBe(0);
    expect(await takeAnswersFromReport(journal, join(dir.path, 'r.xml'), spool)).toBe(0);
    expect(await takeAnswersFromReport(journal, undefined, spool)).toBe(0);
  });
});
