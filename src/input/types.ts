// The shape every reader yields: one record with where it came from, so errors can name file:line.

/** A field value as read: CSV gives strings, JSON may give numbers, booleans or objects. */
export type FieldValue = string | number | boolean | null | Record<string, unknown> | unknown[];

export interface InputRecord {
  /** Position in the whole campaign, 1-based; the report's `row`. */
  row: number;
  /** The file it came from ("-" for stdin). */
  file: string;
  /** Line in that file where the record starts, 1-based. */
  line: number;
  fields: Record<string, FieldValue>;
  /**
   * Set when the row could not be read (a CSV row with the wrong number of fields, or a quote
   * out of place): why, and `fields` is empty. It is invalid like any record that breaks a rule.
   */
  malformed?: string;
}

/** The formats `--input-format` names (`jsonl` is read as ndjson). */
export const INPUT_FORMATS = ['csv', 'json', 'ndjson'] as const;
export type InputFormat = (typeof INPUT_FORMATS)[number];

/**
 * One opened input file: its columns when the format declares them up front, and its records in
 * batches (one per chunk read: a promise per batch, not per record), with `row` still 0: the
 * campaign numbers them.
 */
export interface OpenedInput {
  file: string;
  format: InputFormat;
  columns?: readonly string[];
  /** CSV: the line the first record after the header can start on. */
  lineAfterHeader?: number;
  records: AsyncIterable<InputRecord[]>;
  /** CSV and NDJSON: the line after the last record read, once they are all read. */
  lineAfter?: () => number;
  /** Closes the file when its records are not read (CSV has it open once the header is read). */
  close?: () => Promise<void>;
}
