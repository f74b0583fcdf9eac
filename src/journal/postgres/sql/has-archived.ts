// Whether a campaign has a journal of an earlier generation (set aside by a --force run): proof
// of earlier sends.
import type { Queries } from '../connect.js';

export async function hasArchived(db: Queries, id: string, generation: number): Promise<boolean> {
  const found = await db.query(
    'SELECT 1 FROM sms_send.journal WHERE campaign = $1 AND generation < $2 LIMIT 1',
    [id, generation],
  );
  return (found.rowCount ?? 0) > 0;
}
