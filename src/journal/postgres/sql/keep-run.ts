// Keeps a run's record for the campaign's page, in place of the one it kept before: only while the
// run holds the campaign (its fencing number), so a run taken over changes nothing.
import type { Queries } from '../connect.js';
import type { Fenced } from './fenced.js';

export async function keepRun(
  db: Queries,
  lease: Fenced,
  run: { key: string; host: string; record: unknown },
): Promise<boolean> {
  const result = await db.query(
    `INSERT INTO sms_send.runs (campaign, key, host, record)
       SELECT $1, $3, $4, $5::jsonb FROM sms_send.campaigns WHERE id = $1 AND fence = $2::bigint
     ON CONFLICT (campaign, key) DO UPDATE SET record = EXCLUDED.record, host = EXCLUDED.host`,
    [lease.id, lease.fence, run.key, run.host, JSON.stringify(run.record)],
  );
  return result.rowCount === 1;
}
