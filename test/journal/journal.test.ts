// The journal read back line by line: starts, sends, unsent batches and results, as a resume sees them.
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { injectDiskFault } from '../../src/shared/disk.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/shared/errors.js';
import {
  adoptResults,
  emptyJournalState,
  readJournalFile,
  type JournalState,
} from '../../src/journal/reading.js';
import {
  ARCHIVED_JOURNAL,
  archiveJournal,
  JournalWriter,
} from '../../src/journal/folder/journal.js';
import { JOURNAL_VERSION, resultLine, batchLine } from '../../src/journal/lines.js';
import type { Outcome, RowResult } from '../../src/message/outcome.js';

let dir: string;
let path: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sms-send-journal-'));
  path = join(dir, 'journal.ndjson');
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Reads a journal written as these lines (objects as JSON, strings as they are). */
async function read(...lines: (object | string)[]): Promise<JournalState> {
  const text = lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n');
  await writeFile(path, `${text}\n`);
  const state = await readJournalFile(path);
  if (!state) throw new Error('no journal');
  return state;
}

const start = (run: number, campaign = 'c-hash', v = JOURNAL_VERSION) => ({
  t: 'start',
  v,
  campaign,
  run,
  at: 'then',
});
const send = (b: string, rows: number[]) => batchLine(b, rows);
const unsent = (b: string) => ({ t: 'unsent', b });
/** A batch's results, each given as [row, outcome, attempts, statusCode, description, transactionId, extraInfo, error]. */
const done = (b: string, ...r: unknown[][]) =>
  resultLine(
    b,
    r.map(
      ([
        row,
        outcome,
        attempts,
        statusCode,
        statusDescription,
        transactionId,
        extraInfo,
        error,
      ]) => ({
        row: row as number,
        outcome: outcome as Outcome,
        attempts: attempts as number,
        ...(statusCode == null ? {} : { statusCode: statusCode as number }),
        ...(statusDescription == null ? {} : { statusDescription: statusDescription as string }),
        ...(transactionId == null ? {} : { transactionId: transactionId as string }),
        ...(extraInfo == null ? {} : { extraInfo: extraInfo as Record<string, string> }),
        ...(error == null ? {} : { error: error as string }),
      }),
    ),
  );

const inFlight = (state: JournalState) => Object.fromEntries(state.inFlight);

describe('readJournal', () => {
  it('is undefined when there is no journal; an empty one has sent nothing', async () => {
    expect(await readJournalFile(path)).toBeUndefined();
    await writeFile(path, '');
    const state = await readJournalFile(path);
    expect(state).toMatchObject({ campaign: '', runs: 0, sent: false });
    expect(state!.results.size).toBe(0);
    expect(state!.inFlight.size).toBe(0);
  });

  it('takes the campaign of the last start, and the highest run number', async () => {
    const state = await read(start(1, 'first'), start(3, 'second'), start(2, 'third'));
    expect(state.campaign).toBe('third');
    expect(state.runs).toBe(3);
    expect(state.sent).toBe(false);
  });

  it('reads its own version only, and names both versions when it refuses another', async () => {
    expect((await read(start(1, 'c'), start(2, 'c'))).runs).toBe(2);
    for (const other of [JOURNAL_VERSION - 1, JOURNAL_VERSION + 1]) {
      await writeFile(path, `${JSON.stringify(start(1, 'c', other))}\n`);
      const refusal = readJournalFile(path);
      await expect(refusal).rejects.toBeInstanceOf(UsageError);
      await expect(refusal).rejects.toMatchObject({
        message:
          `${path} was written by another sms-send (journal version ${other}, this one reads ${JOURNAL_VERSION}); ` +
          'nothing was sent. Resume with the version that began the campaign.',
        code: 'journal-version',
      });
    }
  });

  it('a batch sent without an answer leaves its rows in flight, counted per send', async () => {
    const state = await read(start(1), send('b1', [1, 2]), send('b2', [2, 3]));
    expect(inFlight(state)).toEqual({ 1: 1, 2: 2, 3: 1 });
    expect(state.sent).toBe(true);
    expect(state.results.size).toBe(0);
  });

  it('tells a batch whose request left (posted) from one only recorded as about to be sent', async () => {
    const batch = (b: string, r: number[]) => ({ t: 'batch', b, r });
    const state = await read(
      start(1, 'c', 2),
      batch('1:1', [1, 2]),
      { t: 'posted', b: '1:1' },
      batch('1:2', [3, 4]),
      // A posted line of a batch already answered, or never sent, changes nothing.
      { t: 'posted', b: '1:9' },
    );
    expect(inFlight(state)).toEqual({ 1: 1, 2: 1, 3: 1, 4: 1 });
    expect([...state.unposted].sort()).toEqual([3, 4]);
  });

  it('an unsent batch takes back one send of each of its rows', async () => {
    const state = await read(send('b1', [1, 2]), send('b2', [2, 3]), unsent('b2'));
    expect(inFlight(state)).toEqual({ 1: 1, 2: 1 });
    const none = await read(send('b1', [1]), unsent('b1'));
    expect(inFlight(none)).toEqual({});
    expect(none.sent).toBe(false);
  });

  it('an unsent line of a batch never sent, or already answered, changes nothing', async () => {
    const state = await read(
      send('b1', [1]),
      done('b1', [1, 'accepted', 1]),
      send('b2', [1]),
      unsent('b1'),
      unsent('nope'),
    );
    expect(inFlight(state)).toEqual({ 1: 1 });
  });

  it('a result settles its row and takes it out of flight, whatever the row was sent in', async () => {
    const state = await read(
      send('b1', [1, 2]),
      send('b2', [1]),
      done('b1', [1, 'rejected', 2, 3, 'Invalid', 't-1', { k: 'v' }, 'why']),
    );
    expect(inFlight(state)).toEqual({ 2: 1 });
    expect(state.results.get(1)).toEqual({
      row: 1,
      outcome: 'rejected',
      attempts: 2,
      statusCode: 3,
      statusDescription: 'Invalid',
      transactionId: 't-1',
      extraInfo: { k: 'v' },
      error: 'why',
    });
    expect(state.sent).toBe(true);
  });

  it('fields written as null, or left off the tuple, are absent from the result', async () => {
    const state = await read(
      done(
        'b1',
        [1, 'unknown', 1, null, null, null, null, null],
        [2, 'accepted', 1],
        [3, 'failed', 0, 0, ''],
      ),
    );
    expect(state.results.get(1)).toEqual({ row: 1, outcome: 'unknown', attempts: 1 });
    expect(state.results.get(2)).toEqual({ row: 2, outcome: 'accepted', attempts: 1 });
    expect(state.results.get(3)).toEqual({
      row: 3,
      outcome: 'failed',
      attempts: 0,
      statusCode: 0,
      statusDescription: '',
    });
  });

  it('passes over a line of a kind it does not know', async () => {
    const state = await read(
      send('b1', [1]),
      { t: 'note', b: 'b1', text: 'x' },
      done('b1', [1, 'accepted', 1]),
    );
    expect(state.results.get(1)).toEqual({ row: 1, outcome: 'accepted', attempts: 1 });
    expect(inFlight(state)).toEqual({});
  });

  it('skips blank lines and a torn last line; its batch stays in flight', async () => {
    const state = await read(start(1), '', send('b1', [4]), '{"t":"done","b":"b1","r":[[4,"acc');
    expect(inFlight(state)).toEqual({ 4: 1 });
    expect(state.results.size).toBe(0);
    expect(state.runs).toBe(1);
  });

  it('reads a journal longer than one read of the file', async () => {
    const lines = [start(1)];
    for (let b = 1; b <= 2000; b++) lines.push(send(`batch-${b}`, [b]) as never);
    for (let b = 1; b <= 2000; b += 2) lines.push(done(`batch-${b}`, [b, 'accepted', 1]) as never);
    const state = await read(...lines);
    expect(state.results.size).toBe(1000);
    expect(state.inFlight.size).toBe(1000);
    expect(state.inFlight.has(2000)).toBe(true);
    expect(state.results.outcome(1999)).toBe('accepted');
  });
});

describe('JournalWriter', () => {
  it('creates the journal private to its owner and appends each line as JSON', async () => {
    const writer = await JournalWriter.open(path);
    expect(writer.path).toBe(path);
    await writer.append(batchLine('b1', [1, 2]));
    await writer.append({ t: 'unsent', b: 'b1' });
    await writer.close();
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect(await readFile(path, 'utf8')).toBe(
      '{"t":"batch","b":"b1","r":[1,2]}\n{"t":"unsent","b":"b1"}\n',
    );
  });

  it('appends after what is there, starting a new line after a torn one', async () => {
    await writeFile(path, '{"t":"batch","b":"b1","r":[1,1]}\n{"t":"re');
    const writer = await JournalWriter.open(path);
    await writer.append(batchLine('b2', [2]));
    await writer.close();
    expect(await readFile(path, 'utf8')).toBe(
      '{"t":"batch","b":"b1","r":[1,1]}\n{"t":"re\n{"t":"batch","b":"b2","r":[2,2]}\n',
    );
    expect(inFlight((await readJournalFile(path))!)).toEqual({ 1: 1, 2: 1 });
  });

  it('adds no blank line after a whole last line', async () => {
    await writeFile(path, '{"t":"unsent","b":"x"}\n');
    const writer = await JournalWriter.open(path);
    await writer.append({ t: 'unsent', b: 'y' });
    await writer.close();
    expect(await readFile(path, 'utf8')).toBe('{"t":"unsent","b":"x"}\n{"t":"unsent","b":"y"}\n');
  });

  it('a result line is read back as the result it records', async () => {
    const writer = await JournalWriter.open(path);
    const row: RowResult = {
      row: 7,
      to: '4741000007',
      messageId: 'm-7',
      outcome: 'accepted',
      attempts: 1,
      statusCode: 0,
      statusDescription: 'Accepted',
    };
    await writer.append(batchLine('b', [7]));
    await writer.append(resultLine('b', [row]));
    await writer.close();
    const state = await readJournalFile(path);
    expect(state!.results.get(7)).toEqual({
      row: 7,
      outcome: 'accepted',
      attempts: 1,
      statusCode: 0,
      statusDescription: 'Accepted',
    });
    expect(state!.inFlight.size).toBe(0);
  });
});

describe('journal lines', () => {
  it('batchLine copies the rows, so a later change to the caller’s array is not recorded', () => {
    const rows = [1, 2];
    const line = batchLine('b', rows);
    rows.push(3);
    expect(line).toEqual({ t: 'batch', b: 'b', r: [1, 2] });
  });

  it('resultLine writes the results as columns, leaving out what none has; not the number or id', () => {
    const full: RowResult = {
      row: 1,
      to: '47',
      messageId: 'm',
      outcome: 'rejected',
      attempts: 2,
      statusCode: 5,
      statusDescription: 'No',
      transactionId: 't',
      extraInfo: { a: 'b' },
      error: 'e',
    };
    const bare: RowResult = { row: 2, to: '47', messageId: 'n', outcome: 'unknown', attempts: 1 };
    expect(resultLine('b9', [bare, full])).toEqual({
      t: 'result',
      b: 'b9',
      r: [1, 2],
      o: [
        [1, 'rejected'],
        [1, 'unknown'],
      ],
      a: [
        [1, 2],
        [1, 1],
      ],
      c: [
        [1, 5],
        [1, null],
      ],
      d: [
        [1, 'No'],
        [1, null],
      ],
      i: [
        [1, 't'],
        [1, null],
      ],
      x: {
        a: [
          [1, 'b'],
          [1, null],
        ],
      },
      e: [
        [1, 'e'],
        [1, null],
      ],
    });
  });
});

describe('archiveJournal', () => {
  it('sets the journal aside as journal-<time>.ndjson beside it', async () => {
    await writeFile(path, 'x\n');
    await archiveJournal(path, 1_764_000_000_000);
    const names = await readdir(dir);
    expect(names).toEqual(['journal-1764000000000.ndjson']);
    expect(names[0]).toMatch(ARCHIVED_JOURNAL);
    expect(await readFile(join(dir, names[0]!), 'utf8')).toBe('x\n');
  });

  it('renames the journal itself, not a folder on its path that bears its name', async () => {
    const folder = join(dir, 'journal.ndjson.d');
    await mkdir(folder);
    await writeFile(join(folder, 'journal.ndjson'), 'x\n');
    await archiveJournal(join(folder, 'journal.ndjson'), 1);
    const names = await readdir(folder);
    expect(names).toHaveLength(1);
    expect(names[0]).toMatch(ARCHIVED_JOURNAL);
  });

  it('does nothing when there is no journal, and passes on a rename the disk refuses', async () => {
    await expect(archiveJournal(path, 1)).resolves.toBeUndefined();
    await writeFile(join(dir, 'file'), '');
    await expect(archiveJournal(join(dir, 'file', 'journal.ndjson'), 1)).resolves.toBeUndefined();
    await writeFile(path, 'x\n');
    const refused = Object.assign(new Error('EROFS: read-only file system, rename'), {
      code: 'EROFS',
    });
    injectDiskFault((op) => (op === 'rename' ? { error: refused } : undefined));
    try {
      await expect(archiveJournal(path, 1)).rejects.toBe(refused);
    } finally {
      injectDiskFault(undefined);
    }
    expect(await readFile(path, 'utf8')).toBe('x\n');
  });

  it('ARCHIVED_JOURNAL names only archived journals', () => {
    expect('journal-1700000000000.ndjson').toMatch(ARCHIVED_JOURNAL);
    for (const name of [
      'journal.ndjson',
      'journal-.ndjson',
      'journal-1x.ndjson',
      'xjournal-1.ndjson',
      'journal-1.ndjsonx',
    ])
      expect(name).not.toMatch(ARCHIVED_JOURNAL);
  });
});

describe('the journal, line by line: what the edges do', () => {
  it('batchLine records each row once, in order, as ranges', () => {
    expect(batchLine('b', [5, 3, 4, 3, 9, 8])).toEqual({ t: 'batch', b: 'b', r: [3, 5, 8, 9] });
  });

  it('an empty journal state names no campaign and has sent nothing', () => {
    expect(emptyJournalState()).toMatchObject({ campaign: '', runs: 0, sent: false });
    expect(emptyJournalState().inFlight.size).toBe(0);
  });

  it('adopting no results changes nothing; adopting some settles them in row order as the report batch', async () => {
    const state = await read(start(1), send('1:1', [1, 2, 3]));
    adoptResults(state, []);
    expect(state.adopted).toBeUndefined();
    expect(inFlight(state)).toEqual({ 1: 1, 2: 1, 3: 1 });
    adoptResults(state, [
      { row: 3, outcome: 'accepted', attempts: 1, statusCode: 0, transactionId: 't3' },
      { row: 1, outcome: 'rejected', attempts: 1, statusCode: 5 },
    ]);
    expect([...state.adopted!.keys()]).toEqual([1, 3]);
    expect(state.results.get(3)).toMatchObject({ transactionId: 't3' });
    expect(state.results.outcome(1)).toBe('rejected');
    expect(inFlight(state)).toEqual({ 2: 1 });
  });

  it('a batch sent again after a posted send stays posted: its rows left whole once', async () => {
    const state = await read(
      start(1),
      send('1:1', [1]),
      { t: 'posted', b: '1:1' },
      send('1:1', [1]),
    );
    expect(inFlight(state)).toEqual({ 1: 2 });
    expect(state.unposted.size).toBe(0);
  });

  it('an unsent line takes back one of two sends, and the batch stays in flight', async () => {
    const state = await read(start(1), send('1:1', [1]), send('1:1', [1]), unsent('1:1'));
    expect(inFlight(state)).toEqual({ 1: 1 });
  });

  it('a result for part of a batch settles those rows; the batch waits for the rest', async () => {
    const state = await read(
      start(1),
      send('1:1', [1, 2]),
      done('1:1', [1, 'accepted', 1, 0]),
      send('1:1', [1, 2]),
    );
    // The batch is still waiting, sent twice: both rows are in flight for both sends.
    expect(inFlight(state)).toEqual({ 1: 2, 2: 2 });
  });

  it('a journal that ends on a blank line reads as the lines before it', async () => {
    const state = await read(start(1), send('1:1', [1]), '', '');
    expect(inFlight(state)).toEqual({ 1: 1 });
  });

  it('appends to an empty journal that exists without adding a line before its first', async () => {
    await writeFile(path, '');
    const writer = await JournalWriter.open(path);
    await writer.append({ t: 'unsent', b: 'x' });
    await writer.close();
    expect(await readFile(path, 'utf8')).toBe('{"t":"unsent","b":"x"}\n');
  });
});
