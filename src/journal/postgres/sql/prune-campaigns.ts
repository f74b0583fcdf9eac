// Removes the campaigns that finished before a time, unless a run holds one (or, for a dry run,
// lists them); their IDs, sorted.
import type { PruneOptions } from '../../store.js';
import type { Queries } from '../connect.js';
import { LIVE } from './fenced.js';

export async function pruneCampaigns(
  db: Queries,
  before: Date,
  { dryRun = false, only }: PruneOptions = {},
): Promise<string[]> {
  const which = `manifest->>'status' = 'finished'
        AND coalesce(manifest->>'finishedAt', manifest->>'updatedAt')::timestamptz < $1
        AND NOT ${LIVE}
        AND ($2::text[] IS NULL OR id = ANY($2::text[]))`;
  const result = await db.query<{ id: string }>(
    dryRun
      ? `SELECT id FROM sms_send.campaigns WHERE ${which}`
      : `DELETE FROM sms_send.campaigns WHERE ${which} RETURNING id`,
    [before.toISOString(), only ?? null],
  );
  return result.rows.map((row) => row.id).sort();
}
