// What a --resume makes of each record, from the journal alone: reported as an earlier run left
// it, confirmed by a delivery report, re-sent by a follow-up, or sent again.
import { describe, expect, it } from 'vitest';
import type { JournalState } from '../../../src/journal/reading.js';
import { SettledResults, type SettledResult } from '../../../src/journal/results.js';
import {
  applyJournal,
  earlierOnly,
  maybeEarlier,
  settledRows,
  withoutEarlier,
  type Earlier,
} from '../../../src/campaign/steps/resume.js';
import type { ResumeCounts } from '../../../src/campaign/types.js';
import type { Entry } from '../../../src/validate/entries.js';

const RESULTS: SettledResult[] = [
  { row: 1, outcome: 'accepted', attempts: 1, statusCode: 0, statusDescription: 'Accepted' },
  { row: 2, outcome: 'rejected', attempts: 2, statusCode: 3, statusDescription: 'Invalid' },
  { row: 3, outcome: 'unknown', attempts: 2, error: 'HTTP 504 from the gateway' },
  { row: 4, outcome: 'failed', attempts: 4, error: 'ECONNREFUSED' },
  { row: 7, outcome: 'skipped', attempts: 0, error: 'suppressed' },
  // Failed in one run, sent again by a run killed before the answer.
  { row: 8, outcome: 'failed', attempts: 1, error: 'ECONNREFUSED' },
];

/** Rows 1–4, 7, 8 have results; 5 was sent twice without an answer, 8 once more; 6 never. */
function journal(): JournalState {
  const results = new SettledResults();
  for (const r of RESULTS) results.set(r);
  return {
    campaign: 'h',
    runs: 1,
    sent: true,
    results,
    inFlight: new Map([
      [5, 2],
      [8, 1],
    ]),
    unposted: new Set(),
  };
}

const message = (row: number, columns: object = {}): Entry => ({
  kind: 'message',
  row,
  to: `47${41000000 + row}`,
  messageId: `m-${row}`,
  json: `{"row":${row}}`,
  ...columns,
});

const final = (row: number): Entry => ({
  kind: 'final',
  row,
  to: `47${41000000 + row}`,
  messageId: `m-${row}`,
  result: { outcome: 'skipped', error: 'suppressed since' },
});

const earlier = (row: number, attempts: number | undefined, result: object, columns = {}) => ({
  kind: 'final',
  row,
  to: `47${41000000 + row}`,
  messageId: `m-${row}`,
  attempts,
  result,
  earlier: true,
  ...columns,
});

const IN_FLIGHT = 'sent by an interrupted run that got no answer; --retry-unknown sends it again';

/**
 * What a resume makes of the entries, read as one stream (applyJournal); checked against the
 * two streams a resume of a spool reads instead, which must split the records the same way.
 */
async function resume(
  entries: Entry[],
  retryUnknown: boolean,
  resent?: ReadonlyMap<number, string>,
  delivered?: (messageId: string) => boolean,
): Promise<{ out: Entry[]; counts: ResumeCounts }> {
  const given = (counts: ResumeCounts): Earlier => ({
    journal: journal(),
    retryUnknown,
    counts,
    resent,
    delivered,
  });
  // As the spool's reader gives them: messages whose rows `keep` turns down are passed over.
  async function* chunks(keep: (row: number) => boolean = () => true) {
    const kept = entries.filter((entry) => entry.kind === 'final' || keep(entry.row));
    yield kept.slice(0, 3);
    await Promise.resolve();
    yield kept.slice(3);
  }
  const collect = async (stream: AsyncIterable<Entry[]>) => {
    const out: Entry[] = [];
    for await (const chunk of stream) out.push(...chunk);
    return out;
  };
  const counts: ResumeCounts = { fromJournal: 0, fromReport: 0, inFlight: 0, unposted: 0 };
  const out = await collect(applyJournal(chunks(), given(counts)));
  const splitCounts: ResumeCounts = { fromJournal: 0, fromReport: 0, inFlight: 0, unposted: 0 };
  const split = given(splitCounts);
  const isEarlier = (entry: Entry) => entry.kind === 'final' && entry.earlier === true;
  const settled = settledRows(split.journal, retryUnknown, resent);
  expect(
    await collect(
      withoutEarlier(
        chunks((row) => !settled(row)),
        split,
      ),
    ),
  ).toStrictEqual(out.filter((entry) => !isEarlier(entry)));
  expect(await collect(earlierOnly(chunks(maybeEarlier(split)), split))).toStrictEqual(
    out.filter(isEarlier),
  );
  expect(splitCounts).toEqual(counts);
  return { out, counts };
}

const byRow = (rows: RowOf[]) => rows;
type RowOf = [row: number, settled: boolean];

describe('settledRows', () => {
  it.each([
    [
      'a plain resume',
      false,
      undefined,
      byRow([
        [1, true],
        [2, true],
        [3, true],
        [4, false],
        [5, true],
        [6, false],
        [7, true],
        [8, true],
      ]),
    ],
    [
      '--retry-unknown',
      true,
      undefined,
      byRow([
        [1, true],
        [2, true],
        [3, false],
        [4, false],
        [5, false],
        [6, false],
        [7, true],
        [8, false],
      ]),
    ],
    [
      'rows 3, 4 and 6 re-sent by a follow-up, --retry-unknown',
      true,
      new Map([
        [3, 'f'],
        [4, 'f'],
        [6, 'f'],
      ]),
      byRow([
        [1, true],
        [2, true],
        [3, true],
        [4, true],
        [5, false],
        [6, true],
        [7, true],
        [8, false],
      ]),
    ],
  ])('%s', (_name, retryUnknown, resent, expected) => {
    const settled = settledRows(journal(), retryUnknown, resent);
    expect(expected.map(([row]) => [row, settled(row)])).toEqual(expected);
  });
});

describe('applyJournal', () => {
  it('reports what the journal settled, the rows in flight as unknown, and sends the rest', async () => {
    const { out, counts } = await resume(
      [1, 2, 3, 4, 5, 6, 7, 8].map((row) => message(row)),
      false,
    );
    expect(out).toStrictEqual([
      earlier(1, 1, RESULTS[0]!),
      earlier(2, 2, RESULTS[1]!),
      earlier(3, 2, RESULTS[2]!),
      message(4),
      earlier(5, 2, { outcome: 'unknown', error: IN_FLIGHT }),
      message(6),
      earlier(7, 0, RESULTS[4]!),
      earlier(8, 1, { outcome: 'unknown', error: IN_FLIGHT }),
    ]);
    expect(counts).toEqual({ fromJournal: 4, fromReport: 0, inFlight: 2, unposted: 0 });
  });

  it('--retry-unknown sends the unknown and in-flight rows again', async () => {
    const { out, counts } = await resume(
      [3, 5].map((row) => message(row)),
      true,
    );
    expect(out).toStrictEqual([message(3), message(5)]);
    expect(counts).toEqual({ fromJournal: 0, fromReport: 0, inFlight: 0, unposted: 0 });
  });

  it('a row a follow-up re-sent is skipped, naming the follow-up; one settled here keeps its result', async () => {
    const resent = new Map([
      [1, 'f-9'],
      [3, 'f-9'],
      [4, 'f-9'],
      [6, 'f-9'],
    ]);
    const { out, counts } = await resume(
      [1, 3, 4, 6].map((row) => message(row)),
      true,
      resent,
    );
    const skipped = (row: number) =>
      earlier(row, 0, {
        outcome: 'skipped',
        error: 're-sent by follow-up campaign f-9; its report has the result',
      });
    expect(out).toStrictEqual([earlier(1, 1, RESULTS[0]!), skipped(3), skipped(4), skipped(6)]);
    expect(counts).toEqual({ fromJournal: 4, fromReport: 0, inFlight: 0, unposted: 0 });
  });

  it('a delivery report confirms an unknown or in-flight row as accepted, even with --retry-unknown', async () => {
    const delivered = (id: string) => ['m-1', 'm-3', 'm-4', 'm-5', 'm-6', 'm-8'].includes(id);
    for (const retryUnknown of [false, true]) {
      const { out, counts } = await resume(
        [1, 3, 4, 5, 6, 8].map((row) => message(row)),
        retryUnknown,
        undefined,
        delivered,
      );
      const confirmed = 'confirmed by delivery report';
      expect(out).toStrictEqual([
        earlier(1, 1, RESULTS[0]!),
        earlier(3, 2, { ...RESULTS[2]!, outcome: 'accepted', statusDescription: confirmed }),
        message(4),
        earlier(5, 2, { outcome: 'accepted', statusDescription: confirmed }),
        message(6),
        retryUnknown ? message(8) : earlier(8, 1, { outcome: 'unknown', error: IN_FLIGHT }),
      ]);
      expect(counts).toEqual({
        fromJournal: 3,
        fromReport: 0,
        inFlight: retryUnknown ? 0 : 1,
        unposted: 0,
      });
    }
  });

  it('a record this run leaves out keeps what the journal says happened to it', async () => {
    const resent = new Map([[6, 'f']]);
    const delivered = () => true;
    const { out, counts } = await resume([1, 4, 5, 6, 3, 8].map(final), false, resent, delivered);
    expect(out).toStrictEqual([
      { ...final(1), result: RESULTS[0], attempts: 1, earlier: true },
      final(4),
      {
        ...final(5),
        attempts: 2,
        result: { outcome: 'unknown', error: 'sent by an interrupted run that got no answer' },
        earlier: true,
      },
      final(6),
      { ...final(3), result: RESULTS[2], attempts: 2, earlier: true },
      {
        ...final(8),
        attempts: 1,
        result: { outcome: 'unknown', error: 'sent by an interrupted run that got no answer' },
        earlier: true,
      },
    ]);
    expect(counts).toEqual({ fromJournal: 2, fromReport: 0, inFlight: 2, unposted: 0 });
  });

  it('the text columns travel with a record reported from the journal, and only those it has', async () => {
    const columns = { segments: 2, encoding: 'UCS-2', normalized: 3 };
    const { out } = await resume(
      [message(1, columns), message(5, { segments: 1 }), message(2, { encoding: 'GSM-7' })],
      false,
    );
    expect(out).toStrictEqual([
      earlier(1, 1, RESULTS[0]!, columns),
      earlier(5, 2, { outcome: 'unknown', error: IN_FLIGHT }, { segments: 1 }),
      earlier(2, 2, RESULTS[1]!, { encoding: 'GSM-7' }),
    ]);
  });
});
