// Report writers: rows are appended in their format's layout as results arrive, never held in memory.
import { createReadStream } from 'node:fs';
import { open, rm, type FileHandle } from 'node:fs/promises';
import { basename, extname } from 'node:path';
import { leadingTo, UsageError } from '../shared/errors.js';
import { FORMATS, reportFormat, type Layout, type ReportFormat } from './format.js';
import { writeAll } from '../shared/files.js';
import { junitCase, junitHead, JUNIT_TAIL } from './junit.js';
import type { RowResult } from '../message/outcome.js';
import { REPORT_COLUMNS, toCsvCells, toJsonRow, type ReportColumn } from './row.js';

export interface ReportWriter {
  readonly path: string;
  readonly format: ReportFormat;
  write(rows: readonly RowResult[]): Promise<void>;
  close(): Promise<void>;
}

/**
 * Writes encoded rows to an open file in a layout: the head at once, each batch in one write,
 * the tail on end(). Sending runs and report rewrites both write through it.
 */
export class LayoutWriter<Unit> {
  private empty = true;

  private constructor(
    private readonly handle: FileHandle,
    private readonly layout: Layout<Unit>,
  ) {}

  static start<Unit>(
    handle: FileHandle,
    layout: Layout<Unit>,
    columns: readonly string[],
  ): Promise<LayoutWriter<Unit>> {
    const head = layout.head(columns);
    if (head) writeAll(handle, head);
    return Promise.resolve(new LayoutWriter(handle, layout));
  }

  write(rows: Unit[]): Promise<void> {
    if (rows.length > 0) {
      const text = this.layout.body(rows, this.empty);
      this.empty = false;
      writeAll(this.handle, text);
    }
    return Promise.resolve();
  }

  end(): Promise<void> {
    const tail = this.layout.tail(this.empty);
    if (tail) writeAll(this.handle, tail);
    return Promise.resolve();
  }
}

/**
 * The error every command gives when a report would be overwritten. A campaign with a recorded
 * run is refused by its state before this (sent, or unfinished: --resume), so here no run of it
 * is recorded, and --resume would find nothing to resume: --force (or another --report) is the
 * way on. `unrecorded`: the campaign and the state directory that hold no run of it.
 */
export function reportExistsError(
  path: string,
  unrecorded?: { campaign: string; stateDir: string },
): UsageError {
  const why = unrecorded
    ? `, but no run of campaign ${unrecorded.campaign} is recorded in ${unrecorded.stateDir}: it ` +
      'was written by another campaign, with another state directory, or by a run that sent nothing'
    : '';
  const error = new UsageError(
    `report ${path} already exists${why}. Nothing was sent. --force sends this campaign and ` +
      'replaces the report; --report names another file.',
    'report-exists',
  );
  return leadingTo(error, {
    say: 'Send it and replace the report',
    add: ['--force'],
    drop: ['--resume'],
  });
}

/**
 * Creates the report; 'wx' makes "refuse to overwrite" atomic against a concurrent run. `columns`
 * defaults to REPORT_COLUMNS (reportColumns() adds `normalized` and `originalMessageId`).
 */
export async function openReport(
  path: string,
  options: { force: boolean; columns?: readonly ReportColumn[] },
): Promise<ReportWriter> {
  const format = reportFormat(path);
  const columns = options.columns ?? REPORT_COLUMNS;
  let handle: FileHandle;
  try {
    handle = await open(path, options.force ? 'w' : 'wx');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw reportExistsError(path);
    throw new UsageError(`cannot write report ${path}: ${(error as Error).message}`);
  }
  switch (format) {
    case 'csv':
      return rowWriter(path, format, handle, FORMATS.csv.layout, columns, (row) =>
        toCsvCells(row, columns),
      );
    case 'json':
    case 'ndjson':
      return rowWriter(path, format, handle, FORMATS[format].layout, columns, (row) =>
        JSON.stringify(toJsonRow(row, columns)),
      );
    case 'junit':
      return junitWriter(path, handle);
  }
}

async function rowWriter<Unit>(
  path: string,
  format: ReportFormat,
  handle: FileHandle,
  layout: Layout<Unit>,
  columns: readonly ReportColumn[],
  encode: (row: RowResult) => Unit,
): Promise<ReportWriter> {
  const file = await LayoutWriter.start(handle, layout, columns);
  return {
    path,
    format,
    write: (rows) => file.write(rows.map(encode)),
    async close() {
      await file.end();
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
