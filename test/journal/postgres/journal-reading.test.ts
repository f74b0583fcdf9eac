// A campaign's journal read back from PostgreSQL, against a real server: at every size around the
// reading's page (one line less, exactly a page, one line more, several pages) and at batch sizes
// 1 and 100, the database's reading is the state directory's reading of the same lines, line for
// line in the order written, whatever the digits of the rows' sequence numbers.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { campaignIdentity } from '../../../src/journal/identity.js';
import { batchLine, resultLine, type JournalLine } from '../../../src/journal/lines.js';
import { readJournalFile, type JournalState } from '../../../src/journal/reading.js';
import { JOURNAL_PAGE } from '../../../src/journal/postgres/sql/journal-page.js';
import { tempDir } from '../../helpers/files.js';
import { usePostgres } from '../../helpers/postgres.js';
import { databaseStore } from '../../helpers/state.js';

const server = usePostgres();

let dir: Awaited<ReturnType<typeof tempDir>>;
afterEach(() => dir.remove());

/**
 * A run's journal of exactly `count` lines at `batchSize` rows a batch: each batch recorded,
 * posted and answered (accepted, with TransactionIds that count up), a batch every so often
 * answered rejected, and the last batches left without an answer (in flight), as a kill leaves it.
 */
function journalOf(count: number, batchSize: number): JournalLine[] {
  const lines: JournalLine[] = [{ t: 'start', v: 2, campaign: 'c'.repeat(64), run: 1, at: 'x' }];
  for (let batch = 0; lines.length < count; batch++) {
    const rows = Array.from({ length: batchSize }, (_v, i) => batch * batchSize + i + 1);
    const b = `1:${batch + 1}`;
    lines.push(batchLine(b, rows));
    if (lines.length < count) lines.push({ t: 'posted', b });
    if (lines.length < count && lines.length < count - 7) {
      const rejected = batch % 13 === 5;
      lines.push(
        resultLine(
          b,
          rows.map((row) => ({
            row,
            outcome: rejected ? ('rejected' as const) : ('accepted' as const),
            attempts: 1,
            statusCode: rejected ? 3 : 0,
            transactionId: `T${String(row).padStart(9, '0')}`,
          })),
        ),
      );
    }
  }
  return lines.slice(0, count);
}

/** What a resume takes from a reading: every row's result, what is in flight and unposted. */
function seen(state: JournalState | undefined, rows: number) {
  if (!state) return undefined;
  // One text per row: a deep comparison of half a million objects would take the test's time.
  const results = [];
  for (let row = 1; row <= rows; row++)
    results.push(JSON.stringify(state.results.get(row) ?? null));
  return {
    campaign: state.campaign,
    runs: state.runs,
    sent: state.sent,
    settled: state.results.size,
    results: results.join('\n'),
    inFlight: [...state.inFlight.entries()].sort((p, q) => p[0] - q[0]),
    unposted: [...state.unposted].sort((p, q) => p - q),
  };
}

/** The lines recorded by a run holding the campaign, then read back as a resume reads them. */
async function readBack(lines: readonly JournalLine[], firstSeq: number) {
  const stateUrl = await server.database();
  const store = databaseStore(stateUrl, join(dir.path, 'cache'));
  const identity = campaignIdentity('c'.repeat(64));
  const claim = await store.claim({ identity, force: false, resume: false });
  // Sequence numbers that cross a power of ten within the first page.
  await server.query(stateUrl, `SELECT setval('sms_send.journal_seq_seq', ${firstSeq}, false)`);
  const journal = await claim.openJournal();
  // A thousand lines a statement; a `posted` line waits for the next statement, or for settle().
  const written: Promise<void>[] = [];
  for (const [n, line] of lines.entries()) {
    written.push(journal.append(line));
    if (n % 1000 === 999) await Promise.all(written.filter((_p, i) => lines[i]!.t !== 'posted'));
  }
  expect(await journal.settle()).toBe(true);
  await Promise.all(written);
  return {
    state: await claim.readJournal(),
    done: () => claim.release().then(() => store.close()),
  };
}

describe("a journal read back from PostgreSQL is the state directory's reading of its lines", () => {
  const sizes = [
    ['one line less than a page', JOURNAL_PAGE - 1],
    ['exactly a page', JOURNAL_PAGE],
    ['one line more than a page', JOURNAL_PAGE + 1],
    ['several pages', 2 * JOURNAL_PAGE + 2],
  ] as const;
  const cases = [1, 100].flatMap((batchSize) =>
    sizes.map(([name, count]) => [name, count, batchSize] as const),
  );

  it.each(cases)('%s (%i lines), batch size %i', async (_name, count, batchSize) => {
    dir = await tempDir();
    const lines = journalOf(count, batchSize);
    expect(lines).toHaveLength(count);
    const file = join(dir.path, 'journal.ndjson');
    await writeFile(file, lines.map((line) => `${JSON.stringify(line)}\n`).join(''));
    const rows = Math.ceil(count / 3) * batchSize;
    const expected = seen(await readJournalFile(file), rows);
    // The journal this case builds settles most rows and leaves some in flight and unposted.
    expect(expected?.settled).toBeGreaterThan(rows / 2);
    expect(expected?.inFlight.length).toBeGreaterThan(0);
    const { state, done } = await readBack(lines, 9_990);
    try {
      expect(seen(state, rows)).toEqual(expected);
    } finally {
      await done();
    }
  });
});
