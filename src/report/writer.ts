// Report writers: rows are appended in their format's layout as results arrive, never held in memory.
import { createReadStream } from 'node:fs';
import { systemClock } from '../shared/clock.js';
import { rm } from 'node:fs/promises';
import { basename, dirname, extname } from 'node:path';
import { DiskFile, syncFolder } from '../shared/disk.js';
import { describeSystemError, leadingTo, UsageError } from '../shared/errors.js';
import { FORMATS, reportFormat, type Layout, type ReportFormat } from './format.js';
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
 * the tail on end(). Sending runs and report rewrites both write through it. A write that fails
 * (a full disk) is cut back off, so no row is ever glued to a torn one.
 */
export class LayoutWriter<Unit> {
  private empty = true;
  private size: number;

  private constructor(
    private readonly file: DiskFile,
    private readonly layout: Layout<Unit>,
  ) {
    this.size = file.size();
  }

  static start<Unit>(
    file: DiskFile,
    layout: Layout<Unit>,
    columns: readonly string[],
  ): Promise<LayoutWriter<Unit>> {
    const writer = new LayoutWriter(file, layout);
    const head = layout.head(columns);
    if (head) writer.put(head);
    return Promise.resolve(writer);
  }

  write(rows: Unit[]): Promise<void> {
    if (rows.length > 0) {
      const text = this.layout.body(rows, this.empty);
      this.empty = false;
      this.put(text);
    }
    return Promise.resolve();
  }

  end(): Promise<void> {
    const tail = this.layout.tail(this.empty);
    if (tail) this.put(tail);
    return Promise.resolve();
  }

  private put(text: string): void {
    try {
      this.file.write(text);
      this.size += Buffer.byteLength(text);
    } catch (error) {
      try {
        this.file.truncate(this.size);
      } catch {
        // The torn part stays; a reader skips a row it cannot read.
      }
      throw error;
    }
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
  let handle: DiskFile;
  try {
    handle = await DiskFile.open(path, options.force ? 'w' : 'wx', 0o666);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw reportExistsError(path);
    throw unwritableReport(path, error);
  }
  try {
    // Its name synced in its folder before anything is sent: a campaign's manifest names its
    // report, and after a machine crash that name must lead somewhere (a follow-up reads it).
    await syncFolder(dirname(path) || '.');
    return await writerOf(path, format, handle, columns);
  } catch (error) {
    // A report this run made and could not start is no report: the next run must not find it.
    await handle.close();
    if (!options.force) await rm(path, { force: true });
    throw unwritableReport(path, error);
  }
}

function unwritableReport(path: string, error: unknown): UsageError {
  return new UsageError(
    `cannot write report ${path}: ${describeSystemError(error)}; nothing was sent`,
    'state-unwritable',
  );
}

function writerOf(
  path: string,
  format: ReportFormat,
  handle: DiskFile,
  columns: readonly ReportColumn[],
): Promise<ReportWriter> {
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
  handle: DiskFile,
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
      try {
        await file.end();
        await handle.sync();
      } finally {
        await handle.close();
      }
    },
  };
}

/**
 * JUnit wants the counts on the opening tag, so test cases stream into a side file and the
 * report is assembled at the end: memory stays flat, and the journal covers a crash meanwhile.
 */
async function junitWriter(path: string, handle: DiskFile): Promise<ReportWriter> {
  const casesPath = `${path}.cases`;
  const cases = await DiskFile.open(casesPath, 'w');
  const suite = basename(path, extname(path));
  const counts = { tests: 0, failures: 0, skipped: 0 };
  const started = new Date(systemClock.now()).toISOString().slice(0, 19);
  return {
    path,
    format: 'junit',
    write(rows) {
      if (rows.length === 0) return Promise.resolve();
      for (const row of rows) {
        counts.tests++;
        if (row.outcome === 'skipped') counts.skipped++;
        else if (row.outcome !== 'accepted') counts.failures++;
      }
      cases.write(rows.map((row) => junitCase(row, `sms-send.${suite}`)).join(''));
      return Promise.resolve();
    },
    async close() {
      try {
        await cases.close();
        handle.write(junitHead(suite, counts, started));
        for await (const chunk of createReadStream(casesPath)) handle.writeBytes(chunk as Buffer);
        handle.write(JUNIT_TAIL);
        await handle.sync();
      } finally {
        await handle.close();
        await rm(casesPath, { force: true });
      }
    },
  };
}
