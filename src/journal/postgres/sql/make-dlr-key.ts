// Makes the current delivery-report key when there is none: two runs making the first at once
// end with one (the insert checks for a current key, and a unique index keeps it to one).
import type { Queries } from '../connect.js';

export async function makeDlrKey(db: Queries, key: Buffer): Promise<void> {
  await db.query(
    `INSERT INTO sms_send.secrets (key)
     SELECT $1 WHERE NOT EXISTS (SELECT 1 FROM sms_send.secrets WHERE retired_at IS NULL)
     ON CONFLICT DO NOTHING`,
    [key],
  );
}
