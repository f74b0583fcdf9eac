// Report writers (csv, json, ndjson): rows are appended as results arrive, never held in memory.
import { createReadStream } from 'node:fs';
import { open, rm, type FileHandle } from 'node:fs/promises';
import { basename, extname } from 'node:path';
import { stringify } from 'csv-stringify/sync';
import { UsageError } from '../errors.js';
import type { RowResult } from './outcome.js';
import { junitCase, junitHead, JUNIT_TAIL } from './junit.js';
import { escapeFormula, REPORT_COLUMNS, toCsvCells, toJsonRow, type ReportFormat } from './row.js';

export interface ReportWriter {
  readonly path: string;
  readonly format: ReportFormat;
  write(rows: readonly RowResult[]): Promise<void>;
  close(): Promise<void>;
}

export function reportFormat(path: string): ReportFormat {
  const ext = extname(path).toLowerCase();
  if (ext === '.json') return 'json';
  if (ext === '.ndjson' || ext === '.jsonl') return 'ndjson';
  if (ext === '.xml') return 'junit';
  if (ext === '.csv' || ext === '') return 'csv';
  throw new UsageError(`--report ${path}: the extension must be .csv, .json, .ndjson or .xml`);
}

/** The error every command gives when a report would be overwritten. */
export function reportExistsError(path: string): UsageError {
  return new UsageError(
    `report ${path} already exists: this campaign looks already sent. ` +
      'Use --force to send it all again, or --resume to finish it if it was interrupted.',
    'report-exists',
  );
}

/** Creates the report; 'wx' makes "refuse to overwrite" atomic against a concurrent run. */
export async function openReport(path: string, options: { force: boolean }): Promise<ReportWriter> {
  const format = reportFormat(path);
  let handle: FileHandle;
  try {
    handle = await open(path, options.force ? 'w' : 'wx');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw reportExistsError(path);
    throw new UsageError(`cannot write report ${path}: ${(error as Error).message}`);
  }
  return format === 'junit' ? junitWriter(path, handle) : textWriter(path, format, handle);
}

async function textWriter(
  path: string,
  format: Exclude<ReportFormat, 'junit'>,
  handle: FileHandle,
): Promise<ReportWriter> {
  let first = true;
  const header = format === 'csv' ? stringify([REPORT_COLUMNS]) : format === 'json' ? '[\n' : '';
  if (header) await handle.write(header);
  return {
    path,
    format,
    async write(rows) {
      if (rows.length === 0) return;
      let text: string;
      if (format === 'csv') {
        text = stringify(rows.map((row) => toCsvCells(row).map(escapeFormula)));
      } else if (format === 'ndjson') {
        text = rows.map((row) => JSON.stringify(toJsonRow(row))).join('\n') + '\n';
      } else {
        text =
          (first ? '' : ',\n') +
          rows.map((row) => `  ${JSON.stringify(toJsonRow(row))}`).join(',\n');
      }
      first = false;
      await handle.write(text);
    },
    async close() {
      if (format === 'json') await handle.write(first ? ']\n' : '\n]\n');
      await handle.sync();
      await handle.close();
    },
  };
}

/**
 * JUnit wants the counts on the opening tag, so test cases stream into a side file and the
 * report is assembled at the end: memory stays flat, and the journal covers a crash meanwhile.
 */
async function junitWriter(path: string, handle: FileHandle): Promise<ReportWriter> {
  const casesPath = `${path}.cases`;
  const cases = await open(casesPath, 'w');
  const suite = basename(path, extname(path));
  const counts = { tests: 0, failures: 0, skipped: 0 };
  const started = new Date().toISOString().slice(0, 19);
  return {
    path,
    format: 'junit',
    async write(rows) {
      if (rows.length === 0) return;
      for (const row of rows) {
        counts.tests++;
        if (row.outcome === 'skipped') counts.skipped++;
        else if (row.outcome !== 'accepted') counts.failures++;
      }
      await cases.write(rows.map((row) => junitCase(row, `sms-send.${suite}`)).join(''));
    },
    async close() {
      await cases.close();
      await handle.write(junitHead(suite, counts, started));
      for await (const chunk of createReadStream(casesPath)) await handle.write(chunk as Buffer);
      await handle.write(JUNIT_TAIL);
      await handle.sync();
      await handle.close();
      await rm(casesPath, { force: true });
    },
  };
}
