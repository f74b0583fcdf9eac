// The report a run ended with, kept in the database in parts so that any host can write it out
// again (`report ID --output`), and read back part by part: a report of millions of rows is never
// held whole.
import { createHash } from 'node:crypto';
import { open } from 'node:fs/promises';
import { hostname } from 'node:os';
import { HoldLostError, ReportCopyChanged, type ReportCopy } from '../store.js';
import { guarded } from './failures.js';
import type { Database } from './connect.js';
import { addReportPart } from './sql/add-report-part.js';
import { dropReportParts } from './sql/drop-report-parts.js';
import type { Fenced } from './sql/fenced.js';
import { keepReportCopy } from './sql/keep-report-copy.js';
import { readReportCopy, readReportPart } from './sql/read-report-copy.js';

/** Bytes per part: one row of the parts table, well under what a statement may carry. */
const PART_BYTES = 1024 * 1024;

/**
 * Keeps the report run `run` ended with at `path` as the campaign's copy, in one transaction of
 * its holder. Each statement checks the run's fence, and none locks the campaign's row, so the
 * lease is renewed meanwhile however long a large report takes; a run taken over keeps nothing.
 * A report that is no file here to read (the run could not write it) leaves the copy as it was.
 */
export async function keepReport(
  db: Database,
  lease: Fenced,
  { path, run }: { path: string; run: number },
): Promise<void> {
  const file = await open(path, 'r').catch(() => undefined);
  if (file === undefined) return;
  try {
    await db.transaction(async (tx) => {
      await dropReportParts(tx, lease);
      const hash = createHash('sha256');
      const buffer = Buffer.alloc(PART_BYTES);
      let bytes = 0;
      for (let part = 0; ; part++) {
        const { bytesRead } = await file.read(buffer, 0, PART_BYTES, bytes);
        if (bytesRead === 0) break;
        const chunk = buffer.subarray(0, bytesRead);
        hash.update(chunk);
        if (!(await addReportPart(tx, lease, part, chunk))) throw new HoldLostError(lease.id);
        bytes += bytesRead;
      }
      const copy = { path, host: hostname(), bytes, sha256: hash.digest('hex'), run };
      if (!(await keepReportCopy(tx, lease, copy))) throw new HoldLostError(lease.id);
    });
  } finally {
    await file.close();
  }
}

/** The campaign's copy, or undefined when no run kept one. */
export async function reportCopyOf(db: Database, id: string): Promise<ReportCopy | undefined> {
  const row = await readReportCopy(db, id);
  if (!row) return undefined;
  const copy = {
    path: row.path,
    host: row.host,
    bytes: Number(row.bytes),
    sha256: row.sha256,
    run: row.run,
    keptAt: row.kept_at.toISOString(),
  };
  return { ...copy, parts: () => checkedParts(db, id, copy) };
}

/**
 * The copy's parts in order, each read on its own: checked against the size and digest it was
 * kept with, so a copy replaced while it is read (another run ended) is not handed out mixed.
 */
async function* checkedParts(
  db: Database,
  id: string,
  copy: { bytes: number; sha256: string },
): AsyncGenerator<Buffer> {
  const hash = createHash('sha256');
  let bytes = 0;
  for (let part = 0; ; part++) {
    const read = await guarded(db, () => readReportPart(db, id, part));
    if (read === undefined) break;
    hash.update(read);
    bytes += read.length;
    yield read;
  }
  if (bytes !== copy.bytes || hash.digest('hex') !== copy.sha256) {
    throw new ReportCopyChanged(id);
  }
}
