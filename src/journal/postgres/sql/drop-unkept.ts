// Deletes a held campaign that has no manifest (its claim made it, and nothing was kept of it).
import type { Queries } from '../connect.js';
import type { Fenced } from './fenced.js';

export async function dropUnkept(db: Queries, lease: Fenced): Promise<void> {
  await db.query(
    `DELETE FROM sms_send.campaigns
      WHERE id = $1 AND fence = $2::bigint AND manifest IS NULL`,
    [lease.id, lease.fence],
  );
}
