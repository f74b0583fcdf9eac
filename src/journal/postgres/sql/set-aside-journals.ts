// The journals --force runs set aside (earlier generations) of a campaign, counted, and which
// generation is current; undefined when the store has no such campaign.
import type { Queries } from '../connect.js';

export async function setAsideJournals(
  db: Queries,
  id: string,
): Promise<{ journals: number; bytes: number; generation: number } | undefined> {
  const found = await db.query<{ journals: string; bytes: string; generation: number }>(
    `SELECT count(DISTINCT j.generation)::text AS journals,
            coalesce(sum(octet_length(j.line) + 1), 0)::text AS bytes, c.generation
       FROM sms_send.campaigns c
       LEFT JOIN sms_send.journal j ON j.campaign = c.id AND j.generation < c.generation
      WHERE c.id = $1 GROUP BY c.generation`,
    [id],
  );
  const row = found.rows[0];
  return (
    row && { journals: Number(row.journals), bytes: Number(row.bytes), generation: row.generation }
  );
}
