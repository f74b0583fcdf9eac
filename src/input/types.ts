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
}

/** A record before the campaign numbers it. */
export type RawRecord = Omit<InputRecord, 'row'>;

export type InputFormat = 'csv' | 'json' | 'ndjson';

/** One opened input file: its columns when the format declares them up front, and its records. */
export interface OpenedInput {
  file: string;
  format: InputFormat;
  columns?: readonly string[];
  records: AsyncIterable<RawRecord>;
}
