// Reads a report back (csv via csv-parse, json, ndjson) as rows of values, and tallies one.
import type { Readable } from 'node:stream';
import { createInterface } from 'node:readline';
import { open, type FileHandle } from 'node:fs/promises';
import { extname } from 'node:path';
import { parse } from 'csv-parse';
import { UsageError } from '../errors.js';
import { OUTCOMES, type Outcome } from './outcome.js';
import { escapeFormula } from './row.js';
import { Tally } from './summary.js';

/** The report formats that can be read back and rewritten; JUnit XML is write-only. */
export type ReadableFormat = 'csv' | 'json' | 'ndjson';

/** The format of a report to read, from its extension, as the writers choose it. */
export function readableFormat(path: string): ReadableFormat {
  const ext = extname(path).toLowerCase();
  if (ext === '.csv' || ext === '') return 'csv';
  if (ext === '.json') return 'json';
  if (ext === '.ndjson' || ext === '.jsonl') return 'ndjson';
  if (ext === '.xml') {
    throw new UsageError(
      `${path}: a JUnit XML report cannot be read back; use a .csv, .json or .ndjson report`,
    );
  }
  throw new UsageError(`${path}: a report's extension must be .csv, .json or .ndjson`);
}

/** Opens a report for reading; a missing or unreadable one is a usage error (exit 2). */
export async function openReportForReading(path: string): Promise<FileHandle> {
  try {
    return await open(path, 'r');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(
      code === 'ENOENT'
        ? `report ${path} does not exist`
        : `cannot read report ${path}: ${(error as Error).message}`,
      code === 'ENOENT' ? 'no-report' : 'usage',
    );
  }
}

/** Undoes escapeFormula: `'=x` → `=x`, but leaves a value that merely starts with `'` alone. */
export function unescapeFormula(cell: string): string {
  return cell.startsWith("'") && escapeFormula(cell.slice(1)) === cell ? cell.slice(1) : cell;
}

/** CSV records as arrays of cells, the header first; formula escapes are kept. */
export async function* csvRecords(input: Readable, path: string): AsyncGenerator<string[]> {
  const parser = input.pipe(parse({ bom: true, relax_column_count: true, skip_empty_lines: true }));
  try {
    for await (const record of parser) yield record as string[];
  } catch (error) {
    throw new UsageError(`${path}: not a readable CSV report: ${(error as Error).message}`);
  } finally {
    input.destroy();
  }
}

/** Non-empty lines with their 1-based line numbers. */
export async function* textLines(input: Readable): AsyncGenerator<{ line: number; text: string }> {
  const lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
  let line = 0;
  try {
    for await (const text of lines) {
      line++;
      if (text.trim() !== '') yield { line, text };
    }
  } finally {
    input.destroy();
  }
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The elements of a JSON report. A run killed mid-way leaves `[` and one row per line without
 * the closing `]`; such a file is read line by line, as the writer wrote it.
 */
export function jsonReportItems(text: string, path: string): unknown[] {
  // A run killed before it wrote anything leaves an empty file: no rows yet.
  if (text.trim() === '') return [];
  try {
    const value: unknown = JSON.parse(text);
    if (Array.isArray(value)) return value;
  } catch {
    // Possibly cut short: read the writer's layout below.
  }
  const lines = text.split('\n');
  if (lines[0]?.trim() !== '[') throw new UsageError(`${path}: not a JSON report (an array)`);
  const items: unknown[] = [];
  for (let i = 1; i < lines.length; i++) {
    const trimmed = lines[i]!.trim().replace(/,$/, '');
    if (trimmed === '' || trimmed === ']') continue;
    try {
      items.push(JSON.parse(trimmed));
    } catch {
      throw new UsageError(`${path}:${i + 1}: not a readable JSON report row`);
    }
  }
  return items;
}

/** A row read back; `values` has formula escapes removed. `line` is where it starts (json: its index + 1). */
export type ReadRow =
  { ok: true; line: number; values: Record<string, unknown> } | { ok: false; line: number };

/** Every row of a report in order; rows that cannot be read are reported, not skipped. */
export async function* readReportRows(path: string): AsyncGenerator<ReadRow> {
  const format = readableFormat(path);
  const handle = await openReportForReading(path);
  try {
    if (format === 'json') {
      const items = jsonReportItems(await handle.readFile('utf8'), path);
      for (let i = 0; i < items.length; i++) {
        const item = items[i];
        yield isPlainObject(item)
          ? { ok: true, line: i + 1, values: item }
          : { ok: false, line: i + 1 };
      }
      return;
    }
    const input = handle.createReadStream({ autoClose: false, encoding: 'utf8' });
    if (format === 'ndjson') {
      for await (const { line, text } of textLines(input)) {
        let value: unknown;
        try {
          value = JSON.parse(text);
        } catch {
          yield { ok: false, line };
          continue;
        }
        yield isPlainObject(value) ? { ok: true, line, values: value } : { ok: false, line };
      }
      return;
    }
    let header: string[] | undefined;
    let line = 1;
    for await (const cells of csvRecords(input, path)) {
      if (!header) {
        header = cells;
        continue;
      }
      line++;
      yield {
        ok: true,
        line,
        values: Object.fromEntries(
          header.map((name, i) => [name, unescapeFormula(cells[i] ?? '')]),
        ),
      };
    }
  } finally {
    await handle.close();
  }
}

/** A report tallied: what `sms-send report` prints. */
export interface ReportCounts {
  path: string;
  format: ReadableFormat;
  /** Rows read (unreadable ones not included). */
  total: number;
  byOutcome: Record<Outcome, number>;
  /** StatusCode → count, with the first description seen for it. */
  byStatusCode: Record<string, { count: number; description: string }>;
  /** deliveryStatus → count, over the rows that have one. */
  byDeliveryStatus: Record<string, number>;
  /** Accepted rows without a delivery status yet. */
  awaitingDeliveryReport: number;
  /** Rows whose outcome is none of the six (a report from something else, or edited). */
  otherOutcome: number;
  /** Lines that are not rows: torn by a crash, or corrupt. */
  unreadable: number;
}

function text(value: unknown): string | undefined {
  if (typeof value === 'string') return value === '' ? undefined : value;
  if (typeof value === 'number') return String(value);
  return undefined;
}

/** Counts a report's rows by outcome, StatusCode and delivery status. */
export async function summarizeReport(path: string): Promise<ReportCounts> {
  const tally = new Tally();
  const counts: ReportCounts = {
    path,
    format: readableFormat(path),
    total: 0,
    byOutcome: tally.byOutcome,
    byStatusCode: tally.byStatusCode,
    byDeliveryStatus: {},
    awaitingDeliveryReport: 0,
    otherOutcome: 0,
    unreadable: 0,
  };
  for await (const row of readReportRows(path)) {
    if (!row.ok) {
      counts.unreadable++;
      continue;
    }
    counts.total++;
    const { values } = row;
    const outcome = text(values['outcome']);
    const code = text(values['statusCode']);
    if (outcome !== undefined && (OUTCOMES as readonly string[]).includes(outcome)) {
      tally.add({
        row: counts.total,
        to: '',
        messageId: '',
        attempts: 0,
        outcome: outcome as Outcome,
        statusCode: code === undefined || !Number.isFinite(Number(code)) ? undefined : Number(code),
        statusDescription: text(values['statusDescription']),
      });
    } else counts.otherOutcome++;
    const delivery = text(values['deliveryStatus']);
    if (delivery !== undefined) {
      counts.byDeliveryStatus[delivery] = (counts.byDeliveryStatus[delivery] ?? 0) + 1;
    } else if (outcome === 'accepted') counts.awaitingDeliveryReport++;
  }
  return counts;
}
