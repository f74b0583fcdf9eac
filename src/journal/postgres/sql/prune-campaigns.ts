// Removes the campaigns that finished before a time, unless a run holds one; their IDs, sorted.
import type { Queries } from '../connect.js';
import { LIVE } from './fenced.js';

export async function pruneCampaigns(db: Queries, before: Date): Promise<string[]> {
  const result = await db.query<{ id: string }>(
    `DELETE FROM sms_send.campaigns
      WHERE manifest->>'status' = 'finished'
        AND coalesce(manifest->>'finishedAt', manifest->>'updatedAt')::timestamptz < $1
        AND NOT ${LIVE}
      RETURNING id`,
    [before.toISOString()],
  );
  return result.rows.map((row) => row.id).sort();
}
