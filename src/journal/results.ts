// The results a journal settled, held compactly: a resume of ten million records keeps them all.
import { OUTCOMES, type Outcome } from '../message/outcome.js';
import {
  indexIn,
  outcomeAt,
  resultAt,
  rowsOf,
  type ResultColumns,
  type SettledResult,
} from './columns.js';

export type { SettledResult } from './columns.js';

/** Groups are numbered in 29 bits of a row's word (the other 3 hold its outcome). */
const MAX_GROUPS = 2 ** 29;

/**
 * Rows are dense (1…N), so each row has one 32-bit word: its outcome's code (0: none) and the
 * group its detail is in. A group is a journal line's text, kept as UTF-8 bytes in one growing
 * buffer: a batch's result line (one for a hundred rows, a few bytes a row), or the tuple of one
 * row from a journal of version 1. About 4 bytes a row plus the lines' bytes (see
 * docs/architecture.md#what-a-resume-holds), read back only for a row the report needs.
 */
export class SettledResults {
  private words: Uint32Array;
  private text = Buffer.alloc(64 * 1024);
  private used = 0;
  /** Where each group's text ends in `text` (the next begins there). */
  private ends = new Float64Array(1024);
  private groups = 0;
  private count = 0;
  private cached: { group: number; value: ResultColumns | unknown[] } | undefined;

  /** `rows`: the number of rows expected (the campaign's records), so the words need not grow. */
  constructor(rows = 1024) {
    this.words = new Uint32Array(rows + 1);
  }

  get size(): number {
    return this.count;
  }

  /** A mark of how far the journal has been read: see settledSince. */
  get mark(): number {
    return this.groups;
  }

  /** Whether the row's result was read after `mark` was taken. */
  settledSince(row: number, mark: number): boolean {
    const word = this.words[row] ?? 0;
    return (word & 7) !== 0 && word >>> 3 >= mark;
  }

  /** One row's result, as a journal of version 1 records it. */
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

  /** A batch's results: the line's text is kept, its rows point at it. */
  setBatch(line: string, columns: ResultColumns): void {
    const group = this.addGroup(line);
    let index = 0;
    for (const row of rowsOf(columns.r)) this.setWord(row, outcomeAt(columns, index++), group);
  }

  outcome(row: number): Outcome | undefined {
    const code = (this.words[row] ?? 0) & 7;
    return code === 0 ? undefined : OUTCOMES[code - 1];
  }

  get(row: number): SettledResult | undefined {
    const word = this.words[row] ?? 0;
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
    for (const word of this.words) if ((word & 7) !== 0) yield OUTCOMES[(word & 7) - 1]!;
  }

  private setWord(row: number, outcome: Outcome, group: number): void {
    if (row >= this.words.length) {
      const grown = new Uint32Array(Math.max(row + 1, this.words.length * 2));
      grown.set(this.words);
      this.words = grown;
    }
    if ((this.words[row]! & 7) === 0) this.count++;
    this.words[row] = group * 8 + OUTCOMES.indexOf(outcome) + 1;
  }

  private addGroup(line: string): number {
    if (this.groups >= MAX_GROUPS) throw new Error('too many journal lines to hold');
    const bytes = Buffer.byteLength(line);
    if (this.used + bytes > this.text.length) {
      const grown = Buffer.alloc(Math.max(this.used + bytes, this.text.length * 2));
      this.text.copy(grown, 0, 0, this.used);
      this.text = grown;
    }
    this.used += this.text.write(line, this.used);
    if (this.groups >= this.ends.length) {
      const grown = new Float64Array(this.ends.length * 2);
      grown.set(this.ends);
      this.ends = grown;
    }
    this.ends[this.groups] = this.used;
    return this.groups++;
  }

  /** A group's line parsed; the last one is kept, since a report asks for rows in order. */
  private group(group: number): ResultColumns | unknown[] {
    if (this.cached?.group === group) return this.cached.value;
    const start = group === 0 ? 0 : this.ends[group - 1]!;
    const value = JSON.parse(this.text.toString('utf8', start, this.ends[group])) as
      ResultColumns | unknown[];
    this.cached = { group, value };
    return value;
  }
}
