// The version of sms-send's schema the database holds, as its meta table says (none: undefined).
import type { Queries } from '../connect.js';

export async function schemaVersion(db: Queries): Promise<number | undefined> {
  const result = await db.query<{ value: string }>(
    "SELECT value FROM sms_send.meta WHERE key = 'version'",
  );
  return result.rows[0] ? Number(result.rows[0].value) : undefined;
}
