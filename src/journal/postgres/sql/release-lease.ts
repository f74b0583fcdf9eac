// Gives a campaign up, if the run still holds it.
import type { Queries } from '../connect.js';
import type { Fenced } from './fenced.js';

export async function releaseLease(db: Queries, lease: Fenced): Promise<void> {
  await db.query(
    `UPDATE sms_send.campaigns SET holder = NULL, lease_until = NULL
      WHERE id = $1 AND fence = $2::bigint`,
    [lease.id, lease.fence],
  );
}
