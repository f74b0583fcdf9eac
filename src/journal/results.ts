// The results a journal settled, held compactly: a resume of ten million records keeps them all.
import { closeSync, openSync, readSync } from 'node:fs';
import { OUTCOMES, type Outcome } from '../message/outcome.js';
import {
  indexIn,
  outcomeAt,
  resultAt,
  rowsOf,
  type ResultColumns,
  type SettledResult,
} from './columns.js';
import { RowWords } from './row-words.js';

export type { SettledResult } from './columns.js';

/** Groups are numbered in 29 bits of a row's word (the other 3 hold its outcome). */
const MAX_GROUPS = 2 ** 29;

/**
 * Each settled row has a word (RowWords): its outcome's code (0: none) and the group its detail
 * is in. A group is a journal line: a batch's result line (one for a hundred rows), read back from
 * the journal file when a row of it is needed, or one row's result on its own,
 * kept as UTF-8 bytes. About 2 bytes a settled row (see docs/architecture.md#what-a-resume-holds).
 */
export class SettledResults {
  private readonly words = new RowWords();
  private text = Buffer.alloc(0);
  private used = 0;
  /**
   * Where each group's text starts and ends: in `text`, or for a group read from the journal
   * file (`file` given), in the file, whose complete lines never change once written.
   */
  private starts = new Float64Array(1024);
  private ends = new Float64Array(1024);
  /** 1 for a group whose text stays in the journal file. */
  private inFile = new Uint8Array(1024);
  private groups = 0;
  private count = 0;
  private cached: { group: number; value: ResultColumns | unknown[] } | undefined;

  /**
   * `file`: the journal the batches' lines are read from, so their text is read back from it
   * rather than held (see docs/architecture.md#what-a-resume-holds).
   */
  constructor(private readonly file?: string) {}

  get size(): number {
    return this.count;
  }

  /** Bytes of result text held in memory: none for the lines a journal file keeps. */
  get heldBytes(): number {
    return this.text.length;
  }

  /** A mark of how far the journal has been read: see settledSince. */
  get mark(): number {
    return this.groups;
  }

  /** Whether the row's result was read after `mark` was taken. */
  settledSince(row: number, mark: number): boolean {
    const word = this.words.get(row);
    return (word & 7) !== 0 && word >>> 3 >= mark;
  }

  /** One row's result on its own, kept as a line of its own. */
  set(result: SettledResult): void {
    const group = this.addGroup(
      JSON.stringify([
        result.attempts,
        result.statusCode ?? null,
        result.statusDescription ?? null,
        result.transactionId ?? null,
        result.extraInfo ?? null,
        result.error ?? null,
      ]),
    );
    this.setWord(result.row, result.outcome, group);
  }

  /**
   * A batch's results: its rows point at the line, whose text is kept, or when the line's place in
   * the journal file is given (`at`: its first byte, `bytes` long), read back from there.
   */
  setBatch(line: string, columns: ResultColumns, at?: { start: number; bytes: number }): void {
    const group =
      at && this.file ? this.addFileGroup(at.start, at.start + at.bytes) : this.addGroup(line);
    let index = 0;
    for (const row of rowsOf(columns.r)) this.setWord(row, outcomeAt(columns, index++), group);
  }

  outcome(row: number): Outcome | undefined {
    const code = this.words.get(row) & 7;
    return code === 0 ? undefined : OUTCOMES[code - 1];
  }

  get(row: number): SettledResult | undefined {
    const word = this.words.get(row);
    if ((word & 7) === 0) return undefined;
    const value = this.group(word >>> 3);
    if (!Array.isArray(value)) return resultAt(value, row, indexIn(value.r, row));
    const [attempts, statusCode, statusDescription, transactionId, extraInfo, error] = value as [
      number,
      number | null,
      string | null,
      string | null,
      Record<string, string> | null,
      string | null,
    ];
    const result: SettledResult = { row, outcome: OUTCOMES[(word & 7) - 1]!, attempts };
    if (statusCode !== null) result.statusCode = statusCode;
    if (statusDescription !== null) result.statusDescription = statusDescription;
    if (transactionId !== null) result.transactionId = transactionId;
    if (extraInfo !== null) result.extraInfo = extraInfo;
    if (error !== null) result.error = error;
    return result;
  }

  /** Every settled row's outcome, in row order. */
  *outcomes(): Generator<Outcome> {
    for (const word of this.words.words()) yield OUTCOMES[(word & 7) - 1]!;
  }

  private setWord(row: number, outcome: Outcome, group: number): void {
    if ((this.words.get(row) & 7) === 0) this.count++;
    this.words.set(row, group, OUTCOMES.indexOf(outcome) + 1);
  }

  private addGroup(line: string): number {
    const bytes = Buffer.byteLength(line);
    if (this.used + bytes > this.text.length) {
      const grown = Buffer.alloc(Math.max(this.used + bytes, this.text.length * 2, 64 * 1024));
      this.text.copy(grown, 0, 0, this.used);
      this.text = grown;
    }
    const start = this.used;
    this.used += this.text.write(line, this.used);
    return this.nextGroup(start, this.used, 0);
  }

  private addFileGroup(start: number, end: number): number {
    return this.nextGroup(start, end, 1);
  }

  private nextGroup(start: number, end: number, inFile: number): number {
    if (this.groups >= MAX_GROUPS) throw new Error('too many journal lines to hold');
    if (this.groups >= this.ends.length) {
      const size = this.ends.length * 2;
      this.starts = grownTo(this.starts, new Float64Array(size));
      this.ends = grownTo(this.ends, new Float64Array(size));
      this.inFile = grownTo(this.inFile, new Uint8Array(size));
    }
    this.starts[this.groups] = start;
    this.ends[this.groups] = end;
    this.inFile[this.groups] = inFile;
    return this.groups++;
  }

  /** A group's text: from `text`, or read from the journal file (opened for this read only). */
  private textOf(group: number): string {
    const start = this.starts[group]!;
    const end = this.ends[group]!;
    if (this.inFile[group] === 0) return this.text.toString('utf8', start, end);
    const bytes = Buffer.allocUnsafe(end - start);
    const fd = openSync(this.file!, 'r');
    try {
      let done = 0;
      while (done < bytes.length) {
        const read = readSync(fd, bytes, done, bytes.length - done, start + done);
        if (read === 0) throw new Error(`${this.file} is shorter than when it was read`);
        done += read;
      }
    } finally {
      closeSync(fd);
    }
    return bytes.toString('utf8');
  }

  /** A group's line parsed; the last one is kept, since a report asks for rows in order. */
  private group(group: number): ResultColumns | unknown[] {
    if (this.cached?.group === group) return this.cached.value;
    const text = this.textOf(group);
    let value: ResultColumns | unknown[] | undefined;
    try {
      value = JSON.parse(text) as ResultColumns | unknown[];
    } catch {
      value = undefined;
    }
    // A line read back from the file must be the result line that was read there.
    if (
      value === undefined ||
      (this.inFile[group] === 1 && (value as { t?: unknown }).t !== 'result')
    ) {
      throw new Error(`${this.file}: no result line at byte ${this.starts[group]} any more`);
    }
    this.cached = { group, value };
    return value;
  }
}

/** `into` (larger) with `from`'s values at its start. */
function grownTo<T extends Float64Array | Uint8Array>(from: T, into: T): T {
  into.set(from);
  return into;
}
