// Records what a campaign's report copy is (its path and host, size and digest), once its parts
// are kept, while the run holds the campaign.
import type { Queries } from '../connect.js';
import type { Fenced } from './fenced.js';

export async function keepReportCopy(
  db: Queries,
  lease: Fenced,
  copy: { path: string; host: string; bytes: number; sha256: string; run: number },
): Promise<boolean> {
  const result = await db.query(
    `INSERT INTO sms_send.report_copies (campaign, path, host, bytes, sha256, run)
       SELECT id, $3, $4, $5, $6, $7 FROM sms_send.campaigns WHERE id = $1 AND fence = $2::bigint
     ON CONFLICT (campaign) DO UPDATE SET path = EXCLUDED.path, host = EXCLUDED.host,
       bytes = EXCLUDED.bytes, sha256 = EXCLUDED.sha256, run = EXCLUDED.run, kept_at = now()`,
    [lease.id, lease.fence, copy.path, copy.host, copy.bytes, copy.sha256, copy.run],
  );
  return result.rowCount === 1;
}
