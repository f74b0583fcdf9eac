// Whether the store has a campaign of an ID (with a manifest or not): a name set aside is free only
// when it has none.
import type { Queries } from '../connect.js';

export async function campaignExists(db: Queries, id: string): Promise<boolean> {
  const found = await db.query('SELECT 1 FROM sms_send.campaigns WHERE id = $1', [id]);
  return (found.rowCount ?? 0) > 0;
}
