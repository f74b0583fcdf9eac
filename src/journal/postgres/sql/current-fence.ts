// The fencing number a campaign holds now: the run that took it last.
import type { Queries } from '../connect.js';

export async function currentFence(db: Queries, id: string): Promise<string | undefined> {
  const found = await db.query<{ fence: string }>(
    'SELECT fence FROM sms_send.campaigns WHERE id = $1',
    [id],
  );
  return found.rows[0]?.fence;
}
