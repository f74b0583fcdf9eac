// Answers a stopped run kept only in its report: which rows count as a gateway's answer, and how a
// resume takes them (checked against the spool's MessageIds, a torn last row left out).
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  answerOf,
  takeAnswersFromReport,
  takeKeptAnswers,
} from '../../src/campaign/kept-answers.js';
import { SpoolWriter } from '../../src/validate/spool.js';
import { emptyJournalState } from '../../src/journal/reading.js';
import type { Entry } from '../../src/validate/entries.js';
import { tempDir } from '../helpers/files.js';

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

describe('answerOf: each field of the answer, exactly', () => {
  const base = { row: '4', messageId: 'm-4', outcome: 'accepted', statusCode: '0', attempts: '1' };
  it.each([
    ['only what the row holds', {}, {}],
    ['a description', { statusDescription: 'OK' }, { statusDescription: 'OK' }],
    ['an empty description: none', { statusDescription: '' }, {}],
    ['a TransactionId', { transactionId: 'T-4' }, { transactionId: 'T-4' }],
    ['numbers as JSON keeps them', { row: 4, statusCode: 0, attempts: 3 }, { attempts: 3 }],
    [
      'ExtraInfo pairs, one without a key left out',
      { extraInfo: 'a=1; =x; b=c=d' },
      { extraInfo: { a: '1', b: 'c=d' } },
    ],
    ['ExtraInfo with no pair: none', { extraInfo: 'plain' }, {}],
    [
      'ExtraInfo as an object, only its texts',
      { extraInfo: { s: 'x', n: 1 } },
      { extraInfo: { s: 'x' } },
    ],
    ['ExtraInfo as an empty object: none', { extraInfo: {} }, {}],
    ['ExtraInfo as an array: none', { extraInfo: ['a=1'] }, {}],
    ['ExtraInfo as a number: none', { extraInfo: 7 }, {}],
    ['ExtraInfo null: none', { extraInfo: null }, {}],
  ])('%s', (_name, change, extra) => {
    expect(answerOf({ ...base, ...change })).toStrictEqual({
      messageId: 'm-4',
      result: { row: 4, outcome: 'accepted', attempts: 1, statusCode: 0, ...extra },
    });
  });

  it.each([
    ['row 0', { row: '0' }],
    ['a negative row', { row: '-2' }],
    ['a row with a fraction', { row: '4.5' }],
    ['a row with words after it', { row: '4 x' }],
    ['a row with words before it', { row: 'x 4' }],
    ['a row past the safe integers', { row: '90071992547409930' }],
    ['a row of one digit then more', { row: '4\n5' }],
    ['no StatusCode', { statusCode: undefined }],
    ['a StatusCode that is not a number', { statusCode: 'OK' }],
    ['attempts that are not a number', { attempts: 'one' }],
    ['a MessageId that is not text', { messageId: 7 }],
    ['a row with a space before it', { row: ' 4' }],
    ['an empty StatusCode', { statusCode: '' }],
    ['a StatusCode of null', { statusCode: null }],
    ['empty attempts', { attempts: '' }],
    ['a rejection without a StatusCode', { outcome: 'rejected', statusCode: undefined }],
  ])('none for %s', (_name, change) => {
    expect(answerOf({ ...base, ...change })).toBeUndefined();
  });

  it('reads a StatusCode of several digits, and a negative one, as the gateway gave it', () => {
    expect(answerOf({ ...base, outcome: 'rejected', statusCode: '120' })?.result.statusCode).toBe(
      120,
    );
    expect(answerOf({ ...base, outcome: 'rejected', statusCode: '-3' })?.result.statusCode).toBe(
      -3,
    );
  });
});

describe('takeAnswersFromReport: what it passes over', () => {
  it('takes nothing for a row whose record the spool holds as final, and does not stumble on it', async () => {
    const report = join(dir.path, 'final.csv');
    await writeFile(report, [HEADER, line(1, 'm-1', 'T1'), line(2, 'm-2', 'T2'), ''].join('\n'));
    const journal = emptyJournalState();
    journal.inFlight = new Map([
      [1, 1],
      [2, 1],
    ]);
    const entries: Entry[] = [
      { kind: 'final', row: 1, to: '4741000000', messageId: 'm-1', result: { outcome: 'invalid' } },
      { kind: 'message', row: 2, to: '4741000000', messageId: 'm-2', json: '{}' },
      { kind: 'final', row: 3, to: '4741000000', messageId: 'm-3', result: { outcome: 'invalid' } },
    ];
    // Final entries come back whatever keep() says, as the spool gives them.
    const spool = async function* (keep?: (row: number) => boolean) {
      await Promise.resolve();
      yield entries.filter((entry) => entry.kind === 'final' || keep?.(entry.row) !== false);
    };
    expect(await takeAnswersFromReport(journal, report, spool)).toBe(1);
    expect(journal.results.outcome(1)).toBeUndefined();
    expect(journal.results.get(2)).toMatchObject({ outcome: 'accepted', transactionId: 'T2' });
  });

  it('keeps what a report held before it turned unreadable, but the last row read', async () => {
    // Columns in another order: read whole by the CSV parser, which fails at the cut quote.
    const report = join(dir.path, 'unclosed.csv');
    const cols = 'messageId,row,outcome,statusCode,transactionId,attempts';
    const csvRow = (n: number) => `m-${n},${n},accepted,0,T${n},1`;
    await writeFile(report, [cols, csvRow(1), csvRow(2), 'm-3,3,"accepted'].join('\n'));
    const journal = emptyJournalState();
    journal.inFlight = new Map([
      [1, 1],
      [2, 1],
      [3, 1],
    ]);
    const taken = await takeAnswersFromReport(
      journal,
      report,
      spoolOf([1, 'm-1'], [2, 'm-2'], [3, 'm-3']),
    );
    expect(taken).toBe(1);
    expect(journal.results.outcome(1)).toBe('accepted');
    expect(journal.results.outcome(2)).toBeUndefined();
  });

  it('reads past rows that hold no answer to the answers after them', async () => {
    const report = join(dir.path, 'mixed.csv');
    const unknownRow = '1,4741000000,m-1,unknown,,,,,1,timeout,1,GSM-7';
    await writeFile(report, [HEADER, unknownRow, line(2, 'm-2', 'T2'), ''].join('\n'));
    const journal = emptyJournalState();
    journal.inFlight = new Map([
      [1, 1],
      [2, 1],
    ]);
    expect(await takeAnswersFromReport(journal, report, spoolOf([1, 'm-1'], [2, 'm-2']))).toBe(1);
    expect(journal.results.get(2)).toMatchObject({ outcome: 'accepted', transactionId: 'T2' });
  });

  it('takes nothing from a folder where the report should be', async () => {
    const journal = emptyJournalState();
    journal.inFlight = new Map([[1, 1]]);
    expect(await takeAnswersFromReport(journal, dir.path + '/', spoolOf([1, 'm-1']))).toBe(0);
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

describe('takeKeptAnswers: from the spool file on this host', () => {
  async function spoolFile(name: string, ...ids: [row: number, messageId: string][]) {
    const path = join(dir.path, name);
    const writer = await SpoolWriter.create(path);
    for (const [row, messageId] of ids) {
      writer.add({ kind: 'message', row, to: '4741000000', messageId, json: '{}' });
    }
    await writer.close();
    return path;
  }
  function inFlight(...rows: number[]) {
    const journal = emptyJournalState();
    journal.inFlight = new Map(rows.map((row) => [row, 1]));
    return journal;
  }

  it("takes the report's answers whose MessageIds the spool holds", async () => {
    const report = join(dir.path, 'spooled.csv');
    await writeFile(report, [HEADER, line(1, 'm-1', 'T1'), line(2, 'm-2', 'T2'), ''].join('\n'));
    const spool = await spoolFile('spool-a', [1, 'm-1'], [2, 'm-2']);
    const journal = inFlight(1, 2);
    expect(await takeKeptAnswers(journal, report, spool)).toBe(2);
    expect(journal.results.get(2)).toMatchObject({ outcome: 'accepted', transactionId: 'T2' });
  });

  it("takes nothing from another campaign's report at the same path", async () => {
    const report = join(dir.path, 'another.csv');
    await writeFile(report, [HEADER, line(1, 'x-1', 'T1'), ''].join('\n'));
    const spool = await spoolFile('spool-b', [1, 'm-1']);
    const journal = inFlight(1);
    expect(await takeKeptAnswers(journal, report, spool)).toBe(0);
    expect(journal.inFlight.has(1)).toBe(true);
  });

  it('takes nothing when the spool is gone or does not read back, as nothing can be checked', async () => {
    const report = join(dir.path, 'unchecked.csv');
    await writeFile(report, [HEADER, line(1, 'm-1', 'T1'), ''].join('\n'));
    expect(await takeKeptAnswers(inFlight(1), report, join(dir.path, 'no-spool'))).toBe(0);
    const torn = join(dir.path, 'spool-torn');
    await writeFile(torn, 'M\t1\t4741000000\tm-1\t1\tGSM-7\t\t{"cut');
    expect(await takeKeptAnswers(inFlight(1), report, torn)).toBe(0);
  });
});
