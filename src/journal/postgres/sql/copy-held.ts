// A held campaign's state copied under another ID (a rehearsal set aside): its manifest given,
// its generation and host kept; nothing when another run took the campaign over.
import type { Queries } from '../connect.js';
import type { Fenced } from './fenced.js';

export async function copyHeld(
  tx: Queries,
  lease: Fenced,
  id: string,
  manifest: unknown,
): Promise<boolean> {
  const result = await tx.query(
    `INSERT INTO sms_send.campaigns (id, manifest, generation, host)
     SELECT $3, $4::jsonb, generation, host FROM sms_send.campaigns
      WHERE id = $1 AND fence = $2::bigint`,
    [lease.id, lease.fence, id, JSON.stringify(manifest)],
  );
  return result.rowCount === 1;
}
