// The report a run ended with, kept in the database in parts so that any host can write it out
// again (`report ID --output`), and read back part by part: a report of millions of rows is never
// held whole.
import { createHash } from 'node:crypto';
import { open } from 'node:fs/promises';
import { hostname } from 'node:os';
import { HoldLostError, type ReportCopy } from '../store.js';
import type { Database } from './connect.js';
import { addReportPart } from './sql/add-report-part.js';
import { dropReportParts } from './sql/drop-report-parts.js';
import type { Fenced } from './sql/fenced.js';
import { keepReportCopy } from './sql/keep-report-copy.js';
import { lockHeld } from './sql/lock-held.js';
import { readReportCopy, readReportPart } from './sql/read-report-copy.js';

/** Bytes per part: one row of the parts table, well under what a statement may carry. */
const PART_BYTES = 1024 * 1024;

/**
 * Keeps the report at `path` as the campaign's copy, in one transaction of its holder. A report
 * that is no file here to read (the run could not write it) leaves the copy as it was.
 */
export async function keepReport(db: Database, lease: Fenced, path: string): Promise<void> {
  const file = await open(path, 'r').catch(() => undefined);
  if (file === undefined) return;
  try {
    await db.transaction(async (tx) => {
      if (!(await lockHeld(tx, lease))) throw new HoldLostError(lease.id);
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
      const copy = { path, host: hostname(), bytes, sha256: hash.digest('hex') };
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
  return {
    path: row.path,
    host: row.host,
    bytes: Number(row.bytes),
    sha256: row.sha256,
    keptAt: row.kept_at.toISOString(),
    async *parts() {
      for (let part = 0; ; part++) {
        const bytes = await readReportPart(db, id, part);
        if (bytes === undefined) return;
        yield bytes;
      }
    },
  };
}
