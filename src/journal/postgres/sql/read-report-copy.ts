// What a campaign's report copy is, and its parts one at a time.
import type { Queries } from '../connect.js';

export interface ReportCopyRow {
  path: string;
  host: string;
  bytes: string;
  sha256: string;
  run: number;
  kept_at: Date;
}

export async function readReportCopy(db: Queries, id: string): Promise<ReportCopyRow | undefined> {
  const found = await db.query<ReportCopyRow>(
    'SELECT path, host, bytes, sha256, run, kept_at FROM sms_send.report_copies WHERE campaign = $1',
    [id],
  );
  return found.rows[0];
}

export async function readReportPart(
  db: Queries,
  id: string,
  part: number,
): Promise<Buffer | undefined> {
  const found = await db.query<{ bytes: Buffer }>(
    'SELECT bytes FROM sms_send.report_parts WHERE campaign = $1 AND part = $2',
    [id, part],
  );
  return found.rows[0]?.bytes;
}
