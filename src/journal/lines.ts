// The journal's lines, whatever store keeps them: each batch recorded before its request leaves
// and after its answer (docs/architecture.md#the-journal-format), and the sink a run writes them to.
import {
  encodeResults,
  rangesOf,
  type Ranges,
  type ResultColumns,
  type SettledResult,
} from './columns.js';

/** A batch's rows as ranges and its results as columns (docs/architecture.md#the-journal-format). */
export const JOURNAL_VERSION = 2;

export type JournalLine =
  | { t: 'start'; v: number; campaign: string; run: number; at: string }
  /**
   * A batch about to be sent: its rows as ranges, and their recipients (MSISDN digits, comma
   * separated, in row order), so any host can tell whom a campaign may have sent to
   * (`--skip-sent-by`) from its journal alone.
   */
  | { t: 'batch'; b: string; r: Ranges; to?: string }
  /** The batch's request was written whole: it left for the gateway. */
  | { t: 'posted'; b: string }
  /** The batch's last attempt surely did not reach the gateway: it is not in flight. */
  | { t: 'unsent'; b: string }
  /** A batch's results, as columns of runs. */
  | ({ t: 'result'; b: string } & ResultColumns);

/**
 * Where a run records its journal: each batch before its request leaves (an append of an intent
 * resolves once the line is durable, and rejects when the batch may not leave: the store could
 * not record it, or a store shared by hosts may have lost this run's hold), its answers after.
 * Once a write fails, intents are refused (their batches are never sent) and answers are held
 * for rewrite(): an answer the gateway gave is never dropped while the process lives.
 */
export interface JournalSink {
  append(line: JournalLine): Promise<void>;
  /** The first write that failed; from then on no intent is recorded. */
  readonly failure: Error | undefined;
  /** Answers (and posted lines) held since a failure, not yet durable. */
  unrecorded(): JournalLine[];
  /** Writes what is held again; true once it is all durable. */
  rewrite(): Promise<boolean>;
  /** Makes every line written durable; false when that (or an earlier write) failed. */
  settle(): Promise<boolean>;
  close(): Promise<void>;
}

/**
 * The batch's rows, sorted (the send loop takes them in order, and ranges need them so), with the
 * recipient of each when given (`recipients[i]` is `rows[i]`'s).
 */
export function batchLine(
  batch: string,
  rows: readonly number[],
  recipients?: readonly string[],
): JournalLine {
  const to = new Map(rows.map((row, i) => [row, recipients?.[i] ?? '']));
  const sorted = [...to.keys()].sort((p, q) => p - q);
  const line: JournalLine = { t: 'batch', b: batch, r: rangesOf(sorted) };
  if (recipients) line.to = sorted.map((row) => to.get(row)).join(',');
  return line;
}

export function resultLine(batch: string, rows: readonly SettledResult[]): JournalLine {
  return { t: 'result', b: batch, ...encodeResults(rows) };
}
