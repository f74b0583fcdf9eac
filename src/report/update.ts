// Rewrites a report with extra columns, atomically: a new file beside it, checked, then renamed over it.
import { randomBytes } from 'node:crypto';
import type { Stats } from 'node:fs';
import { open, rename, rm, stat, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { stringify } from 'csv-stringify/sync';
import {
  csvRecords,
  isPlainObject,
  jsonReportItems,
  openReportForReading,
  readableFormat,
  textLines,
  unescapeFormula,
} from './read.js';
import { escapeFormula, stringifyWellFormed } from './row.js';

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
  /** Passes it took (more than 1 when the report changed under a pass). */
  passes: number;
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

/** The report kept changing while it was being rewritten; it was left as it was. */
export class ReportChangedError extends Error {
  constructor(
    readonly path: string,
    passes: number,
  ) {
    super(`${path} changed during each of ${passes} attempts to update it; left as it was`);
    this.name = 'ReportChangedError';
  }
}

/**
 * Adds `columns` to a csv, json or ndjson report and sets them row by row, without losing or
 * reordering rows. The new report is written to a temporary file beside the old one, made
 * durable, and renamed over it only if the old one's identity, size and mtime are what they
 * were when reading began; otherwise the pass is thrown away and done again (up to `passes`
 * times, then ReportChangedError). `makeUpdater` is called once per pass, so an updater that
 * counts what it matched starts afresh.
 *
 * What this cannot rule out: a writer that appends between the final stat and the rename (a
 * window of microseconds) loses that append to the replaced file. sms-send itself never does:
 * callers hold the report's lock while updating, and every sending run holds it while it
 * writes. CSV is streamed; a JSON report is read whole and rewritten one row per line.
 */
export async function updateReport(
  path: string,
  columns: readonly string[],
  makeUpdater: () => RowUpdater,
  options: { passes?: number } = {},
): Promise<UpdateResult> {
  const passes = options.passes ?? 3;
  for (let pass = 1; pass <= passes; pass++) {
    const result = await rewriteOnce(path, columns, makeUpdater());
    if (result !== 'changed') return { ...result, passes: pass };
  }
  throw new ReportChangedError(path, passes);
}

interface PassResult {
  rows: number;
  changed: number;
  written: boolean;
  identity: string;
}

async function rewriteOnce(
  path: string,
  columns: readonly string[],
  updater: RowUpdater,
): Promise<PassResult | 'changed'> {
  const format = readableFormat(path);
  const source = await openReportForReading(path);
  const temp = join(
    dirname(path),
    `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`,
  );
  let before: Stats;
  let after: Stats;
  let counts: { rows: number; changed: number };
  try {
    before = await source.stat();
    const target = await open(temp, 'wx', 0o600);
    try {
      await target.chmod(before.mode & 0o7777);
      const out = new Output(target);
      const rewrite =
        format === 'csv' ? rewriteCsv : format === 'ndjson' ? rewriteNdjson : rewriteJson;
      counts = await rewrite(source, out, path, columns, updater);
      await out.flush();
      if (counts.changed > 0) await target.sync();
      after = await target.stat();
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
    if (!sameFile(before, await stat(path))) {
      await rm(temp, { force: true });
      return 'changed';
    }
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
  await syncDirectory(dirname(path));
  return { ...counts, written: true, identity: fileIdentity(after) };
}

function sameFile(a: Stats, b: Stats): boolean {
  return fileIdentity(a) === fileIdentity(b);
}

/** Makes the rename itself durable; not every platform can sync a directory, so best effort. */
async function syncDirectory(dir: string): Promise<void> {
  try {
    const handle = await open(dir, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // The rename has happened either way; only its durability across a power cut is at stake.
  }
}

/** Buffers text and writes it in large pieces. */
class Output {
  private buffer = '';
  constructor(private readonly handle: FileHandle) {}
  async add(text: string): Promise<void> {
    this.buffer += text;
    if (this.buffer.length >= 1 << 16) await this.flush();
  }
  async flush(): Promise<void> {
    if (this.buffer === '') return;
    const text = this.buffer;
    this.buffer = '';
    await this.handle.write(text);
  }
}

type Rewrite = (
  source: FileHandle,
  out: Output,
  path: string,
  columns: readonly string[],
  updater: RowUpdater,
) => Promise<{ rows: number; changed: number }>;

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

const rewriteCsv: Rewrite = async (source, out, path, columns, updater) => {
  const input = source.createReadStream({ autoClose: false, encoding: 'utf8' });
  let names: string[] | undefined;
  let header: string[] = [];
  let positions: number[] = [];
  let rows = 0;
  let changed = 0;
  let pending: string[][] = [];
  for await (const cells of csvRecords(input, path)) {
    if (!names) {
      names = cells;
      header = [...cells, ...columns.filter((column) => !cells.includes(column))];
      positions = columns.map((column) => header.indexOf(column));
      pending.push(header);
      continue;
    }
    rows++;
    const values = updater(
      Object.fromEntries(names.map((name, i) => [name, unescapeFormula(cells[i] ?? '')])),
    );
    const next = cells.length < header.length ? [...cells] : cells;
    while (next.length < header.length) next.push('');
    let touched = false;
    if (values) {
      columns.forEach((column, i) => {
        const value = values[column];
        const at = positions[i]!;
        if (value === undefined) return;
        const cell = escapeFormula(value);
        if (next[at] !== cell) {
          next[at] = cell;
          touched = true;
        }
      });
    }
    if (touched) changed++;
    pending.push(next);
    if (pending.length >= 1000) {
      await out.add(stringify(pending));
      pending = [];
    }
  }
  if (pending.length > 0) await out.add(stringify(pending));
  return { rows, changed };
};

/** Lines that are not JSON objects (a line torn by a crash) are kept as they are. */
const rewriteNdjson: Rewrite = async (source, out, _path, columns, updater) => {
  const input = source.createReadStream({ autoClose: false, encoding: 'utf8' });
  let rows = 0;
  let changed = 0;
  for await (const { text } of textLines(input)) {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      value = undefined;
    }
    if (!isPlainObject(value)) {
      await out.add(`${text}\n`);
      continue;
    }
    rows++;
    if (applyTo(value, columns, updater(value))) {
      changed++;
      await out.add(`${stringifyWellFormed(value)}\n`);
    } else await out.add(`${text}\n`);
  }
  return { rows, changed };
};

/** Written in the writer's layout, one row per line; a report cut short by a crash comes out whole. */
const rewriteJson: Rewrite = async (source, out, path, columns, updater) => {
  const items = jsonReportItems(await source.readFile('utf8'), path);
  let rows = 0;
  let changed = 0;
  const lines: string[] = [];
  for (const item of items) {
    if (isPlainObject(item)) {
      rows++;
      if (applyTo(item, columns, updater(item))) changed++;
    }
    lines.push(`  ${stringifyWellFormed(item)}`);
  }
  await out.add(lines.length === 0 ? '[\n]\n' : `[\n${lines.join(',\n')}\n]\n`);
  return { rows, changed };
};
