// How a run stopped by its state's disk leaves the campaign, counted as its --resume will count it:
// what is settled, unknown, left to send, and which answers the operator must keep by hand.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SpoolReader } from '../../../src/campaign/kept-answers.js';
import { stateLeft, type LeftBehind } from '../../../src/campaign/steps/state-left.js';
import type { SettledResult } from '../../../src/journal/columns.js';
import type { JournalState } from '../../../src/journal/reading.js';
import { SettledResults } from '../../../src/journal/results.js';
import type { Entry } from '../../../src/validate/entries.js';
import { SpoolUnreadableError } from '../../../src/validate/spool.js';
import { mobile, tempDir } from '../../helpers/files.js';

const message = (row: number): Entry => ({
  kind: 'message',
  row,
  to: mobile(row),
  messageId: `m-${row}`,
  json: `{"row":${row}}`,
});

/** Rows 1–8 are messages; row 9 was invalid, reported by the pass and never sent. */
const SPOOL: Entry[] = [
  ...[1, 2, 3, 4, 5, 6, 7, 8].map(message),
  { kind: 'final', row: 9, to: '12', messageId: 'm-9', result: { outcome: 'invalid' } },
];

/**
 * 1 accepted, 2 rejected, 3 failed (sent again), 6 unknown; 4 and 7 sent with no answer, 5
 * recorded as about to be sent; 8 never sent.
 */
function journal(): JournalState {
  const results = new SettledResults();
  const recorded: SettledResult[] = [
    { row: 1, outcome: 'accepted', attempts: 1, statusCode: 0 },
    { row: 2, outcome: 'rejected', attempts: 1, statusCode: 3 },
    { row: 3, outcome: 'failed', attempts: 1, error: 'ECONNREFUSED' },
    { row: 6, outcome: 'unknown', attempts: 1, error: 'HTTP 504' },
  ];
  for (const result of recorded) results.set(result);
  return {
    campaign: 'h',
    runs: 1,
    sent: true,
    results,
    inFlight: new Map([
      [4, 1],
      [5, 1],
      [7, 1],
    ]),
    unposted: new Set([5]),
  };
}

/** The spool read back, in chunks of three as the reader gives them. */
const reread: SpoolReader = async function* (keep = () => true) {
  const kept = SPOOL.filter((entry) => entry.kind === 'final' || keep(entry.row));
  for (let at = 0; at < kept.length; at += 3) {
    await Promise.resolve();
    yield kept.slice(at, at + 3);
  }
};

/**
 * Answers the run received but could not journal: 7's and 5's are lost with the journal, 1's the
 * journal has, and 8's is no gateway answer.
 */
const HELD: SettledResult[] = [
  { row: 1, outcome: 'accepted', attempts: 1, statusCode: 0 },
  { row: 7, outcome: 'accepted', attempts: 1, statusCode: 0, transactionId: 'T7' },
  { row: 5, outcome: 'rejected', attempts: 1, statusCode: 3 },
  { row: 8, outcome: 'failed', attempts: 1, error: 'ECONNRESET' },
];

let dir: Awaited<ReturnType<typeof tempDir>>;
let report: string;
beforeEach(async () => {
  dir = await tempDir();
  report = join(dir.path, 'report.csv');
  // The report kept 4's answer; the row it has for 7 is another campaign's MessageId.
  await writeFile(
    report,
    'row,to,messageId,outcome,attempts,statusCode,transactionId\n' +
      `4,${mobile(4)},m-4,accepted,1,0,T4\n` +
      `7,${mobile(7)},other-7,accepted,1,0,T7\n`,
  );
});
afterEach(async () => {
  await dir.remove();
});

function files(change: Partial<LeftBehind> = {}): LeftBehind {
  return {
    readJournal: () => Promise.resolve(journal()),
    reportPath: report,
    reread,
    reportDurable: false,
    retryUnknown: false,
    ...change,
  };
}

const LOST = [
  { row: 5, messageId: 'm-5', outcome: 'rejected', statusCode: 3 },
  { row: 7, messageId: 'm-7', outcome: 'accepted', statusCode: 0, transactionId: 'T7' },
];

describe('stateLeft', () => {
  it.each([
    ['a plain resume', {}, { settled: 3, inReport: 0, sentNoAnswer: 2, unposted: 1, toSend: 2 }],
    [
      'a resume with --retry-unknown: the unknown and unanswered are sent again',
      { retryUnknown: true },
      { settled: 2, inReport: 0, sentNoAnswer: 0, unposted: 0, toSend: 6 },
    ],
    [
      'a durable report: the answer it kept is settled',
      { reportDurable: true },
      { settled: 4, inReport: 1, sentNoAnswer: 1, unposted: 1, toSend: 2 },
    ],
    [
      'a delivery report for a row sent with no answer',
      { delivered: (id: string) => id === 'm-4' },
      { settled: 4, inReport: 0, sentNoAnswer: 1, unposted: 1, toSend: 2 },
    ],
    [
      'a row a follow-up re-sent',
      { resent: new Map([[8, 'follow-up-1']]) },
      { settled: 4, inReport: 0, sentNoAnswer: 2, unposted: 1, toSend: 1 },
    ],
  ] as const)('counts %s', async (_what, change, counts) => {
    const left = await stateLeft(files(change), HELD);
    expect(left).toEqual({ ...counts, lost: LOST });
  });

  it('lists no answer as lost that the journal or a durable report kept', async () => {
    // Every answer held is 4's, which the report kept; and 1's, which the journal has.
    const held: SettledResult[] = [
      { row: 1, outcome: 'accepted', attempts: 1, statusCode: 0 },
      { row: 4, outcome: 'accepted', attempts: 1, statusCode: 0, transactionId: 'T4' },
    ];
    expect((await stateLeft(files({ reportDurable: true }), held))?.lost).toEqual([]);
    expect((await stateLeft(files(), held))?.lost).toEqual([
      { row: 4, messageId: 'm-4', outcome: 'accepted', statusCode: 0, transactionId: 'T4' },
    ]);
  });

  it('counts nothing without the spool to read', async () => {
    expect(await stateLeft(files({ reread: undefined }), HELD)).toBeUndefined();
  });

  it('counts nothing from a spool that does not read back as written', async () => {
    const torn: SpoolReader = async function* () {
      yield [message(1)];
      await Promise.resolve();
      throw new SpoolUnreadableError('spool', 'a line cut short');
    };
    expect(await stateLeft(files({ reread: torn }), HELD)).toBeUndefined();
  });

  it('lets any other failure through', async () => {
    const failing: SpoolReader = async function* () {
      yield [message(1)];
      await Promise.resolve();
      throw new Error('a bug of our own');
    };
    await expect(stateLeft(files({ reread: failing }), HELD)).rejects.toThrow('a bug of our own');
  });
});
