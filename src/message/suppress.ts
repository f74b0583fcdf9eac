// Suppression lists (--suppress): numbers that opted out, read before anything is sent and kept as sorted digits.
import { createReadStream } from 'node:fs';
import { basename } from 'node:path';
import { createInterface } from 'node:readline';
import { UsageError, type Problem } from '../shared/errors.js';
import { InputError } from '../input/errors.js';
import { openCsv } from '../input/csv.js';
import { planColumns } from './columns.js';
import { normalizeListedNumber } from './msisdn.js';

/** A list as the settings name it: where to read it, and how the user wrote it (for messages). */
export interface ListFile {
  path: string;
  label: string;
}

export interface SuppressionList {
  /** The list's base name, as the report's reason names it: `suppressed (optouts.csv)`. */
  name: string;
  label: string;
  /** Distinct MSISDN digits as numbers, sorted: 8 bytes an entry, searched by halving. */
  numbers: Float64Array;
}

/** One line of a one-number-per-line list. */
export type ListLine =
  { kind: 'blank' } | { kind: 'number'; msisdn: string } | { kind: 'error'; reason: string };

/** The report's reason for a suppressed record: `suppressed (optouts.csv)`. */
export function suppressedReason(list: string): string {
  return `${SUPPRESSED_PREFIX}${list})`;
}

/** How every suppressed record's reason begins, for the counts of a report's rows. */
export const SUPPRESSED_PREFIX = 'suppressed (';

/** The report's reason for a record left out by --skip-sent-by: `sent by campaign 94600b…`. */
export function sentByReason(campaign: string): string {
  return `${SENT_BY_PREFIX}${campaign}`;
}

/** How every such reason begins, for the counts of a report's rows. */
export const SENT_BY_PREFIX = 'sent by campaign ';

/** The problems shown in the exit-2 message; the rest are counted. */
export const MAX_LISTED_PROBLEMS = 20;

/** The recipient columns a CSV list may use, as the error names them. */
const PHONE_COLUMNS = 'to, phone, msisdn, mobile, number, recipient or DestinationAddress';

/** A first line made of these is a number (line form); anything else is a CSV header. */
const NUMBER_LIKE = /^[\s\d+\-().\u00a0/]+$/;

/**
 * The numbers of every list; `match` names the first list that holds a recipient. MSISDNs have at
 * most 15 digits (E.164) and never start with 0, so a double holds each exactly.
 */
export class Suppression {
  constructor(readonly lists: readonly SuppressionList[]) {}

  /** The name of the first list holding these MSISDN digits, or undefined. */
  match(msisdn: string): string | undefined {
    const value = Number(msisdn);
    for (const list of this.lists) if (holds(list.numbers, value)) return list.name;
    return undefined;
  }
}

/** Reads one line of a list: a number (normalised like a recipient), blank or comment, or why not. */
export function parseListLine(text: string, country?: string): ListLine {
  const hash = text.indexOf('#');
  const value = (hash === -1 ? text : text.slice(0, hash)).trim();
  if (value === '') return { kind: 'blank' };
  const number = normalizeListedNumber(value, country);
  return number.ok
    ? { kind: 'number', msisdn: number.msisdn }
    : { kind: 'error', reason: `"${value}" ${number.reason}` };
}

/**
 * Reads every list; any unreadable file, bad line or CSV without a phone column is one UsageError
 * (exit 2) naming file, line and field, before anything is sent.
 */
export async function loadSuppression(
  files: readonly ListFile[],
  country?: string,
): Promise<Suppression | undefined> {
  if (files.length === 0) return undefined;
  const problems = new Problems();
  const lists: SuppressionList[] = [];
  for (const file of files) {
    const numbers = new NumberCollector();
    try {
      const first = await firstLine(file.path);
      if (first === undefined || first.text.trimStart().startsWith('#') || isNumberLike(first)) {
        await readLines(file, country, numbers, problems);
      } else {
        await readCsv(file, country, numbers, problems, first.line);
      }
      lists.push({ name: basename(file.label), label: file.label, numbers: numbers.done() });
    } catch (error) {
      problems.add(readProblem(error, file));
    }
  }
  if (problems.count > 0) throw problems.error();
  return new Suppression(lists);
}

function isNumberLike(first: { text: string }): boolean {
  return NUMBER_LIKE.test(first.text);
}

async function readLines(
  file: ListFile,
  country: string | undefined,
  numbers: NumberCollector,
  problems: Problems,
): Promise<void> {
  let line = 0;
  for await (const raw of lines(file.path)) {
    line++;
    const read = parseListLine(line === 1 ? raw.replace(/^\uFEFF/, '') : raw, country);
    if (read.kind === 'number') numbers.add(read.msisdn);
    else if (read.kind === 'error') problems.add({ file: file.label, line, reason: read.reason });
  }
}

async function readCsv(
  file: ListFile,
  country: string | undefined,
  numbers: NumberCollector,
  problems: Problems,
  headerLine: number,
): Promise<void> {
  const input = await openCsv(file.path, { label: file.label });
  const column = planColumns(input.columns ?? [], {}, true).to;
  if (column === undefined) {
    problems.add({
      file: file.label,
      line: headerLine,
      reason:
        `neither a number nor a CSV header with a phone column (${PHONE_COLUMNS}); ` +
        `columns are: ${(input.columns ?? []).join(', ')}`,
    });
    // Its records are not read, so the file is closed here rather than left to the collector.
    await input.close?.();
    return;
  }
  for await (const batch of input.records) {
    for (const record of batch) {
      // A row of an opt-out list that cannot be read may hold a number that must not be sent
      // to: the list is refused, naming every such row.
      if (record.malformed !== undefined) {
        problems.add({
          file: file.label,
          line: record.line,
          reason: `malformed CSV: ${record.malformed}`,
        });
        continue;
      }
      const value = record.fields[column];
      const text = typeof value === 'string' ? value.trim() : '';
      // A contact without a phone number suppresses nobody, and is no mistake in the list.
      if (text === '') continue;
      const number = normalizeListedNumber(text, country);
      if (number.ok) numbers.add(number.msisdn);
      else {
        problems.add({
          file: file.label,
          line: record.line,
          field: column,
          reason: `"${text}" ${number.reason}`,
        });
      }
    }
  }
}

function lines(path: string): AsyncIterable<string> {
  return createInterface({ input: createReadStream(path, 'utf8'), crlfDelay: Infinity });
}

/** The first line that is not blank, and its number, or undefined for an empty list. */
async function firstLine(path: string): Promise<{ text: string; line: number } | undefined> {
  let line = 0;
  const input = createReadStream(path, 'utf8');
  const reader = createInterface({ input, crlfDelay: Infinity });
  try {
    for await (const raw of reader) {
      line++;
      const text = raw.replace(/^\uFEFF/, '');
      if (text.trim() !== '') return { text: text.trim(), line };
    }
    return undefined;
  } finally {
    reader.close();
    input.destroy();
  }
}

function readProblem(error: unknown, file: ListFile): Problem {
  if (error instanceof InputError) {
    return {
      file: file.label,
      ...(error.line === undefined ? {} : { line: error.line }),
      reason: error.reason,
    };
  }
  const code = (error as NodeJS.ErrnoException).code;
  const reason =
    code === 'ENOENT'
      ? 'the suppression list does not exist'
      : code === 'EISDIR'
        ? 'is a directory, not a file'
        : code === 'EACCES'
          ? 'is not readable (permission denied)'
          : `cannot read (${code ?? (error instanceof Error ? error.message : String(error))})`;
  return { file: file.label, reason };
}

/** Every problem counted; the first few kept for the message, so a list all wrong costs no memory. */
class Problems {
  readonly listed: Problem[] = [];
  count = 0;

  add(problem: Problem): void {
    if (++this.count <= MAX_LISTED_PROBLEMS) this.listed.push(problem);
  }

  error(): UsageError {
    const shown = this.listed.map((p) => {
      const where = p.line === undefined ? p.file : `${p.file}:${p.line}`;
      return `  ${where}: ${p.field === undefined ? '' : `${p.field}: `}${p.reason}`;
    });
    const more = this.count - shown.length;
    const noun = this.count === 1 ? 'problem' : 'problems';
    return new UsageError(
      [
        `the suppression lists (--suppress) have ${this.count} ${noun}:`,
        ...shown,
        ...(more > 0 ? [`  … and ${more} more`] : []),
        'Nothing was sent.',
      ].join('\n'),
      'suppress',
      undefined,
      this.listed,
    );
  }
}

/** Whether `sorted` holds `value`: found by halving. */
export function holds(sorted: Float64Array, value: number): boolean {
  let low = 0;
  let high = sorted.length - 1;
  while (low <= high) {
    const middle = (low + high) >>> 1;
    const at = sorted[middle]!;
    if (at === value) return true;
    if (at < value) low = middle + 1;
    else high = middle - 1;
  }
  return false;
}

/** Numbers in a growing typed array: a list of 500,000 costs 4 MB, not 500,000 strings. */
class NumberCollector {
  private values = new Float64Array(1024);
  private length = 0;

  add(msisdn: string): void {
    if (this.length === this.values.length) {
      const grown = new Float64Array(this.values.length * 2);
      grown.set(this.values);
      this.values = grown;
    }
    this.values[this.length++] = Number(msisdn);
  }

  /** Sorted, without repeats. */
  done(): Float64Array {
    const sorted = this.values.subarray(0, this.length).sort();
    let distinct = 0;
    for (let i = 0; i < sorted.length; i++) {
      if (i === 0 || sorted[i] !== sorted[distinct - 1]) sorted[distinct++] = sorted[i]!;
    }
    return sorted.slice(0, distinct);
  }
}
