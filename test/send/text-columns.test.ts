// The report's segments, encoding and normalized columns travel with each record: through the spool,
// the send loop, and a resumed run whose results come from the journal.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerOf, type Answer } from '../../src/gateway/outcome.js';
import type { JournalState } from '../../src/journal/reading.js';
import type { RowResult } from '../../src/message/outcome.js';
import { systemClock } from '../../src/shared/clock.js';
import { SendEmitter } from '../../src/send/events.js';
import { SettledResults } from '../../src/journal/results.js';
import { applyJournal } from '../../src/campaign/steps/resume.js';
import { sendLoop } from '../../src/send/send.js';
import type { Poster } from '../../src/send/types.js';
import type { Entry } from '../../src/validate/entries.js';
import { readSpool, SpoolWriter } from '../../src/validate/spool.js';
import { tempDir } from '../helpers/files.js';
import { messageEntries, streamOf } from '../helpers/reliability.js';

let dir: Awaited<ReturnType<typeof tempDir>>;
beforeAll(async () => {
  dir = await tempDir();
});
afterAll(() => dir.remove());

const [plain, ucs2, normalized] = messageEntries(3, 'tc');
const ENTRIES: Entry[] = [
  plain!,
  { ...ucs2!, segments: 3, encoding: 'UCS-2' },
  { ...normalized!, segments: 1, encoding: 'GSM-7', normalized: 4 },
  {
    kind: 'final',
    row: 4,
    to: '4741000004',
    messageId: 'tc-4',
    result: {
      outcome: 'invalid',
      error: 'c.csv:5: text: needs 4 segments, more than --max-segments 3',
    },
    segments: 4,
    encoding: 'GSM-7',
  },
];

/** Every entry of a stream of chunks, in order. */
async function collect<T>(chunks: AsyncIterable<T[]>): Promise<T[]> {
  const out: T[] = [];
  for await (const chunk of chunks) out.push(...chunk);
  return out;
}

/** Accepts every message of every request. */
const acceptAll: Poster = {
  post(_messages, messageIds): Promise<Answer> {
    const body = JSON.stringify({
      ProcessResult: true,
      Messages: messageIds.map((id) => ({
        StatusCode: 0,
        StatusDescription: 'Accepted',
        MessageId: id,
        TransactionId: `tx-${id}`,
      })),
    });
    return Promise.resolve(
      answerOf(
        { kind: 'response', status: 200, headers: {}, body, latencyMs: 1 },
        messageIds,
        Date.now(),
        (text) => text,
      ),
    );
  },
};

describe('the text columns', () => {
  it('survive the spool, present or absent', async () => {
    const path = join(dir.path, 'spool');
    const spool = await SpoolWriter.create(path);
    for (const entry of ENTRIES) spool.add(entry);
    await spool.close();
    expect(await collect(readSpool(path))).toEqual(ENTRIES);
  });

  it('reach the report rows of the send loop', async () => {
    const rows: RowResult[] = [];
    const events = new SendEmitter();
    events.on('record', (row) => rows.push(row));
    await sendLoop(
      streamOf(ENTRIES),
      {
        settings: { batchSize: 2, concurrency: 1, retries: 0, outageGraceMs: 0 },
        choices: {},
        io: { events, clock: systemClock },
      },
      { poster: acceptAll },
    );
    const byRow = new Map(rows.map((row) => [row.row, row]));
    expect([1, 2, 3, 4].map((row) => byRow.get(row))).toEqual([
      expect.not.objectContaining({ segments: expect.anything() as unknown }),
      expect.objectContaining({ outcome: 'accepted', segments: 3, encoding: 'UCS-2' }),
      expect.objectContaining({
        outcome: 'accepted',
        segments: 1,
        encoding: 'GSM-7',
        normalized: 4,
      }),
      expect.objectContaining({ outcome: 'invalid', segments: 4, encoding: 'GSM-7' }),
    ]);
  });

  it('stay with a record a resumed run reports from the journal', async () => {
    const results = new SettledResults();
    results.set({ row: 2, outcome: 'accepted', attempts: 1, transactionId: 't2' });
    const journal: JournalState = {
      campaign: 'x',
      runs: 1,
      sent: true,
      results,
      inFlight: new Map([[3, 1]]),
      unposted: new Set(),
    };
    const counts = { fromJournal: 0, fromReport: 0, inFlight: 0, unposted: 0 };
    const resumed = await collect(
      applyJournal(streamOf(ENTRIES), { journal, retryUnknown: false, counts }),
    );
    expect(resumed[1]).toMatchObject({
      kind: 'final',
      segments: 3,
      encoding: 'UCS-2',
      earlier: true,
    });
    expect(resumed[2]).toMatchObject({
      kind: 'final',
      segments: 1,
      encoding: 'GSM-7',
      normalized: 4,
      result: { outcome: 'unknown' },
    });
    expect(counts).toEqual({ fromJournal: 1, fromReport: 0, inFlight: 1, unposted: 0 });
  });
});
