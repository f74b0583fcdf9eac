// Rewrites a report with extra columns, atomically: a new file beside it, made durable, then renamed over it.
import type { Stats } from 'node:fs';
import { rm } from 'node:fs/promises';
import { DiskFile, renameFile, syncFolder } from '../shared/disk.js';
import { dirname } from 'node:path';
import { asideOf } from '../shared/files.js';
import { FORMATS, readableFormat, unescapeFormula, type Layout, type ReadRow } from './format.js';
import { openReportForReading, readRows } from './read.js';
import { stringifyWellFormed } from './row.js';
import { LayoutWriter } from './writer.js';

/**
 * Given one row's values (CSV formula escapes removed), the extra columns to set on it;
 * undefined leaves the row as it is. Columns not passed to updateReport are ignored.
 */
export type RowUpdater = (
  row: Readonly<Record<string, unknown>>,
) => Readonly<Record<string, string>> | undefined;

export interface UpdateResult {
  /** Rows read (lines that are not rows are kept as they are, and not counted). */
  rows: number;
  /** Rows whose extra columns changed. */
  changed: number;
  /** Whether the report was replaced: only when some row changed. */
  written: boolean;
  /**
   * fileIdentity() of the report this result describes (as read, or as written), so a caller
   * can tell later whether the report has changed since.
   */
  identity: string;
}

/** Device, inode, size and mtime: what changes when a report is rewritten or appended to. */
export function fileIdentity(stats: Stats): string {
  return `${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeMs}`;
}

/** Rows are written in groups of this many: few writes, little memory. */
const GROUP = 1000;

/**
 * Adds `columns` to a csv, json or ndjson report and sets them row by row, without losing or
 * reordering rows. The new report is written to a temporary file beside the old one, made
 * durable, and renamed over it; a report no row of which changes is left untouched.
 *
 * The caller holds the report's lock (`<report>.lock`): every sending run holds it while it
 * writes the report, so nothing appends to it during the rewrite. CSV and ndjson are streamed;
 * a JSON report is read whole and rewritten one row per line.
 */
export async function updateReport(
  path: string,
  columns: readonly string[],
  updater: RowUpdater,
): Promise<UpdateResult> {
  const format = readableFormat(path);
  const source = await openReportForReading(path);
  const temp = asideOf(path);
  let before: Stats;
  let after: Stats;
  let counts: Counts;
  try {
    before = await source.stat();
    const target = await DiskFile.open(temp, 'wx');
    try {
      await target.chmod(before.mode & 0o7777);
      const rows = readRows(source, path);
      counts =
        format === 'csv'
          ? await rewriteCsv(rows, target, columns, updater)
          : await rewriteJson(FORMATS[format].layout, rows, target, columns, updater);
      if (counts.changed > 0) await target.sync();
      after = target.stat();
    } finally {
      await target.close();
    }
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  } finally {
    await source.close();
  }
  if (counts.changed === 0) {
    await rm(temp, { force: true });
    return { ...counts, written: false, identity: fileIdentity(before) };
  }
  try {
    await renameFile(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
  await syncFolder(dirname(path));
  return { ...counts, written: true, identity: fileIdentity(after) };
}

interface Counts {
  rows: number;
  changed: number;
}

/**
 * Cells are kept by position, as the file holds them: escapes included, so writing them again adds
 * none, and a row shorter than the header (torn by a crash) is padded. New values are escaped as
 * they are written.
 */
async function rewriteCsv(
  entries: AsyncIterable<ReadRow>,
  target: DiskFile,
  columns: readonly string[],
  updater: RowUpdater,
): Promise<Counts> {
  let out: LayoutWriter<string[]> | undefined;
  let header: string[] = [];
  let positions: number[] = [];
  const counts: Counts = { rows: 0, changed: 0 };
  let group: string[][] = [];
  for await (const entry of entries) {
    if (entry.kind === 'header') {
      header = [...entry.columns, ...columns.filter((column) => !entry.columns.includes(column))];
      positions = columns.map((column) => header.indexOf(column));
      out = await LayoutWriter.start(target, FORMATS.csv.layout, header);
      continue;
    }
    if (entry.kind !== 'row' || !out) continue;
    counts.rows++;
    const values = updater(entry.values);
    const next = [...(entry.cells ?? [])];
    while (next.length < header.length) next.push('');
    let touched = false;
    if (values) {
      columns.forEach((column, i) => {
        const value = values[column];
        const at = positions[i]!;
        if (value === undefined || unescapeFormula(next[at]!) === value) return;
        next[at] = value;
        touched = true;
      });
    }
    if (touched) counts.changed++;
    group.push(next);
    if (group.length >= GROUP) {
      await out.write(group);
      group = [];
    }
  }
  await out?.write(group);
  await out?.end();
  return counts;
}

/**
 * json and ndjson: an unchanged ndjson line is copied as it is, and so is a line that is not a
 * row (torn by a crash); JSON elements are written one per line, as the writer lays them out.
 */
async function rewriteJson(
  layout: Layout<string>,
  entries: AsyncIterable<ReadRow>,
  target: DiskFile,
  columns: readonly string[],
  updater: RowUpdater,
): Promise<Counts> {
  const out = await LayoutWriter.start(target, layout, columns);
  const counts: Counts = { rows: 0, changed: 0 };
  let group: string[] = [];
  for await (const entry of entries) {
    if (entry.kind === 'header') continue;
    if (entry.kind === 'unreadable') group.push(entry.text);
    else {
      counts.rows++;
      const touched = applyTo(entry.values, columns, updater(entry.values));
      if (touched) counts.changed++;
      group.push(
        touched || entry.text === undefined ? stringifyWellFormed(entry.values) : entry.text,
      );
    }
    if (group.length >= GROUP) {
      await out.write(group);
      group = [];
    }
  }
  await out.write(group);
  await out.end();
  return counts;
}

/** Sets the updater's values on an object row; returns whether anything changed. */
function applyTo(
  row: Record<string, unknown>,
  columns: readonly string[],
  values: Readonly<Record<string, string>> | undefined,
): boolean {
  if (!values) return false;
  let touched = false;
  for (const column of columns) {
    const value = values[column];
    if (value !== undefined && row[column] !== value) {
      row[column] = value;
      touched = true;
    }
  }
  return touched;
}
