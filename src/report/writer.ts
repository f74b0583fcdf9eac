// Report writers (csv, json, ndjson): rows are appended as results arrive, never held in memory.
import { open, type FileHandle } from 'node:fs/promises';
import { extname } from 'node:path';
import { stringify } from 'csv-stringify/sync';
import { UsageError } from '../errors.js';
import type { RowResult } from '../send/events.js';
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
  if (ext === '.csv' || ext === '') return 'csv';
  throw new UsageError(`--report ${path}: the extension must be .csv, .json or .ndjson`);
}

/** The error every command gives when a report would be overwritten. */
export function reportExistsError(path: string): UsageError {
  return new UsageError(
    `report ${path} already exists: this campaign looks already sent. ` +
      'Use --force to send it again, or --report to write elsewhere.',
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
