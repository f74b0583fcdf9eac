// One part of a campaign's report copy, kept only while the run holds the campaign.
import type { Queries } from '../connect.js';
import type { Fenced } from './fenced.js';

export async function addReportPart(
  db: Queries,
  lease: Fenced,
  part: number,
  bytes: Buffer,
): Promise<boolean> {
  const result = await db.query(
    `INSERT INTO sms_send.report_parts (campaign, part, bytes)
       SELECT id, $3, $4 FROM sms_send.campaigns WHERE id = $1 AND fence = $2::bigint`,
    [lease.id, lease.fence, part, bytes],
  );
  return result.rowCount === 1;
}
