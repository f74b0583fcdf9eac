// Every delivery-report key, the current one first, with the version of the set (a key made or
// retired changes it).
import type { Queries } from '../connect.js';

/** The version of a store that has no key yet. */
const NO_KEYS = '0:0:0';

export async function readDlrKeys(db: Queries): Promise<{ keys: Buffer[]; version: string }> {
  const result = await db.query<{ key: Buffer; version: string }>(
    `SELECT key, (SELECT count(*) || ':' || coalesce(max(id), 0) || ':' || count(retired_at)
                    FROM sms_send.secrets) AS version
       FROM sms_send.secrets ORDER BY retired_at IS NOT NULL, id DESC`,
  );
  return { keys: result.rows.map((row) => row.key), version: result.rows[0]?.version ?? NO_KEYS };
}
