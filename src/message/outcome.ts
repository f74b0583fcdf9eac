// What became of each record, and the report row that records it: the vocabulary every report format shares.
import type { Encoding } from './encoding.js';

/** The six ends of a record; docs/architecture.md#outcomes says what each means. */
export type Outcome = 'accepted' | 'rejected' | 'invalid' | 'failed' | 'unknown' | 'skipped';

/** In the order summaries and reports list them. */
export const OUTCOMES: readonly Outcome[] = [
  'accepted',
  'rejected',
  'invalid',
  'failed',
  'unknown',
  'skipped',
];

/** The result of one message, as the report records it. */
export interface MessageResult {
  outcome: Outcome;
  statusCode?: number;
  statusDescription?: string;
  transactionId?: string;
  extraInfo?: Record<string, string>;
  error?: string;
}

/** One finished record: a report row. */
export interface RowResult extends MessageResult {
  row: number;
  to: string;
  messageId: string;
  /** HTTP requests that carried this record (0 when it was never sent). */
  attempts: number;
  /** In a follow-up campaign: the MessageId of the row this record re-sends. */
  originalMessageId?: string;
  /** What its text needs (or needed, had it been sent): segments and encoding. */
  segments?: number;
  encoding?: Encoding;
  /** Characters --gsm-normalize replaced in its text; absent when none were. */
  normalized?: number;
}
