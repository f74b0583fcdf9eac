// The results a journal settled, held compactly: a resume of a million-record campaign keeps them all.
import { OUTCOMES, type Outcome, type RowResult } from '../message/outcome.js';

export type SettledResult = Omit<RowResult, 'to' | 'messageId'>;

/**
 * Rows are dense (1…N), so each result sits at its row's index: its outcome in a byte (what resume
 * and the counts ask of every row) and the rest as the JSON of its journal tuple, read back only
 * for a row the report needs. About a third of the memory of a Map of result objects.
 */
export class SettledResults {
  private outcomeCodes = new Uint8Array(1024);
  private readonly details: (string | undefined)[] = [];
  private count = 0;

  get size(): number {
    return this.count;
  }

  set(result: SettledResult): void {
    const { row } = result;
    if (row >= this.outcomeCodes.length) {
      const grown = new Uint8Array(Math.max(row + 1, this.outcomeCodes.length * 2));
      grown.set(this.outcomeCodes);
      this.outcomeCodes = grown;
    }
    if (this.outcomeCodes[row] === 0) this.count++;
    this.outcomeCodes[row] = OUTCOMES.indexOf(result.outcome) + 1;
    this.details[row] = JSON.stringify([
      result.attempts,
      result.statusCode ?? null,
      result.statusDescription ?? null,
      result.transactionId ?? null,
      result.extraInfo ?? null,
      result.error ?? null,
    ]);
  }

  outcome(row: number): Outcome | undefined {
    const code = this.outcomeCodes[row] ?? 0;
    return code === 0 ? undefined : OUTCOMES[code - 1];
  }

  get(row: number): SettledResult | undefined {
    const outcome = this.outcome(row);
    if (outcome === undefined) return undefined;
    const [attempts, statusCode, statusDescription, transactionId, extraInfo, error] = JSON.parse(
      this.details[row]!,
    ) as [
      number,
      number | null,
      string | null,
      string | null,
      Record<string, string> | null,
      string | null,
    ];
    const result: SettledResult = { row, outcome, attempts };
    if (statusCode !== null) result.statusCode = statusCode;
    if (statusDescription !== null) result.statusDescription = statusDescription;
    if (transactionId !== null) result.transactionId = transactionId;
    if (extraInfo !== null) result.extraInfo = extraInfo;
    if (error !== null) result.error = error;
    return result;
  }

  /** Every settled row's outcome, in row order. */
  *outcomes(): Generator<Outcome> {
    for (const code of this.outcomeCodes) if (code !== 0) yield OUTCOMES[code - 1]!;
  }
}
