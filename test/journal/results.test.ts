// The compact store of settled results: every field comes back as it went in, whatever the row.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ResultColumns } from '../../src/journal/columns.js';
import { resultLine } from '../../src/journal/lines.js';
import { SettledResults, type SettledResult } from '../../src/journal/results.js';
import { tempDir } from '../helpers/files.js';

const CASES: SettledResult[] = [
  {
    row: 1,
    outcome: 'accepted',
    attempts: 1,
    statusCode: 0,
    statusDescription: 'Accepted',
    transactionId: '5aa904481-800009',
    extraInfo: { server: 'sim1', subnumref: '997009990000800009' },
  },
  { row: 2, outcome: 'rejected', attempts: 2, statusCode: 3, statusDescription: 'Invalid MSISDN' },
  { row: 3, outcome: 'unknown', attempts: 1, error: 'HTTP 504 from the gateway' },
  { row: 4, outcome: 'failed', attempts: 4, error: 'ECONNREFUSED' },
  { row: 5, outcome: 'skipped', attempts: 0, error: 'suppressed (optouts.csv)' },
  { row: 6, outcome: 'invalid', attempts: 0, error: 'to: "x" is not a phone number' },
  {
    row: 7,
    outcome: 'accepted',
    attempts: 1,
    statusCode: 0,
    statusDescription: 'æøå "quoted" \u{1F600}',
  },
];

describe('SettledResults', () => {
  it.each(CASES.map((c) => [c.outcome, c.row, c]))(
    'gives back a %s result (row %d) field for field',
    (_o, _r, result) => {
      const results = new SettledResults();
      results.set(result);
      expect(results.get(result.row)).toEqual(result);
      expect(results.outcome(result.row)).toBe(result.outcome);
      expect(results.size).toBe(1);
    },
  );

  it('knows nothing of rows never set, and counts a row set again once, with its newest result', () => {
    const results = new SettledResults();
    results.set(CASES[3]!);
    results.set({ ...CASES[3]!, outcome: 'accepted', attempts: 5, error: undefined });
    expect(results.size).toBe(1);
    expect(results.get(4)).toEqual({ row: 4, outcome: 'accepted', attempts: 5 });
    expect(results.get(3)).toBeUndefined();
    expect(results.outcome(999_999)).toBeUndefined();
  });

  it('grows to any row, and lists outcomes in row order', () => {
    const results = new SettledResults();
    for (const row of [1_000_000, 3, 70_000, 1]) {
      results.set({ row, outcome: row === 3 ? 'rejected' : 'accepted', attempts: 1 });
    }
    expect(results.size).toBe(4);
    expect([...results.outcomes()]).toEqual(['accepted', 'rejected', 'accepted', 'accepted']);
    expect(results.get(1_000_000)).toEqual({ row: 1_000_000, outcome: 'accepted', attempts: 1 });
  });

  it('keeps every row set before it grows, at the first row past its initial room too', () => {
    const results = new SettledResults();
    results.set({ row: 1, outcome: 'rejected', attempts: 1, statusCode: 3 });
    results.set({ row: 1023, outcome: 'failed', attempts: 2, error: 'ECONNREFUSED' });
    results.set({ row: 1024, outcome: 'unknown', attempts: 1 });
    results.set({ row: 5000, outcome: 'skipped', attempts: 0 });
    expect([1, 1023, 1024, 5000].map((row) => results.outcome(row))).toEqual([
      'rejected',
      'failed',
      'unknown',
      'skipped',
    ]);
    expect(results.get(1)).toEqual({ row: 1, outcome: 'rejected', attempts: 1, statusCode: 3 });
    expect(results.get(1024)).toEqual({ row: 1024, outcome: 'unknown', attempts: 1 });
    expect(results.size).toBe(4);
    expect([...results.outcomes()]).toEqual(['rejected', 'failed', 'unknown', 'skipped']);
  });
});

describe('SettledResults: batches, their text and the journal file', () => {
  /** A batch's result line for rows first..last, each accepted with its own TransactionId. */
  function batch(first: number, last: number, tx = 'T'): string {
    const rows = Array.from({ length: last - first + 1 }, (_, i) => first + i);
    return JSON.stringify(
      resultLine(
        `1:${first}`,
        rows.map((row) => ({
          row,
          outcome: 'accepted',
          attempts: 1,
          statusCode: 0,
          transactionId: `${tx}${row}`,
        })),
      ),
    );
  }

  it('knows no outcome for a row never settled, among rows that are', () => {
    const results = new SettledResults();
    const line = batch(1, 3);
    results.setBatch(line, JSON.parse(line) as ResultColumns);
    expect(results.outcome(2)).toBe('accepted');
    expect(results.outcome(4)).toBeUndefined();
    expect(results.get(4)).toBeUndefined();
  });

  it('keeps a batch line as text when it has no journal file to read it back from', () => {
    const results = new SettledResults();
    const line = batch(1, 2);
    results.setBatch(line, JSON.parse(line) as ResultColumns, { start: 0, bytes: line.length });
    expect(results.heldBytes).toBeGreaterThanOrEqual(line.length);
    expect(results.get(2)).toMatchObject({ transactionId: 'T2' });
  });

  it('holds one line longer than its first room', () => {
    const results = new SettledResults();
    const line = batch(1, 1, `${'y'.repeat(100_000)}-`);
    results.setBatch(line, JSON.parse(line) as ResultColumns);
    expect(results.get(1)?.transactionId).toBe(`${'y'.repeat(100_000)}-1`);
  });

  it('holds thousands of lines past its first room, megabytes of text, each row back as set', () => {
    const results = new SettledResults();
    const long = 'x'.repeat(200);
    for (let k = 0; k < 3000; k++) {
      const line = batch(k * 10 + 1, k * 10 + 10, `${long}-${k}-`);
      results.setBatch(line, JSON.parse(line) as ResultColumns);
    }
    expect(results.size).toBe(30_000);
    expect(results.heldBytes).toBeGreaterThan(64 * 1024);
    for (const row of [1, 10, 10_241, 29_999, 30_000]) {
      const k = Math.floor((row - 1) / 10);
      expect(results.get(row)?.transactionId).toBe(`${long}-${k}-${row}`);
    }
  });

  it('reads a batch line back from the journal file, at its place, as many times as asked', async () => {
    const dir = await tempDir();
    try {
      const path = join(dir.path, 'journal.ndjson');
      const first = batch(1, 2, 'A');
      const second = batch(3, 4, 'B');
      const text = `{"t":"start"}\n${first}\n${second}\n`;
      await writeFile(path, text);
      const results = new SettledResults(path);
      const at = (line: string) => ({
        start: Buffer.byteLength(text.slice(0, text.indexOf(line))),
        bytes: Buffer.byteLength(line),
      });
      results.setBatch(first, JSON.parse(first) as ResultColumns, at(first));
      results.setBatch(second, JSON.parse(second) as ResultColumns, at(second));
      expect(results.heldBytes).toBe(0);
      expect(
        [results.get(4), results.get(1), results.get(3), results.get(2)].map(
          (r) => r?.transactionId,
        ),
      ).toEqual(['B4', 'A1', 'B3', 'A2']);
      // A file that changed under it is said to have, never read as another line's results.
      await writeFile(path, `{"t":"start"}\n${'x'.repeat(first.length)}\n${second}\n`);
      expect(results.get(3)?.transactionId).toBe('B3');
      expect(() => results.get(1)).toThrow(/no result line at byte 14 any more/);
      // Nor as a line of another kind that happens to stand there.
      const other = JSON.stringify({ t: 'batch', b: 'x', r: [1, 2] });
      await writeFile(path, `{"t":"start"}\n${other.padEnd(first.length)}\n${second}\n`);
      expect(() => results.get(2)).toThrow(/no result line at byte 14 any more/);
      await writeFile(path, '{"t":"start"}\n');
      expect(() => results.get(2)).toThrow(/is shorter than when it was read/);
    } finally {
      await dir.remove();
    }
  });
});
