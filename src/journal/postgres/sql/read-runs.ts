// A campaign's runs for its page, in the order they were first kept.
import type { Queries } from '../connect.js';

export async function readRuns(
  db: Queries,
  id: string,
): Promise<{ key: string; host: string; record: object }[]> {
  const found = await db.query<{ key: string; host: string; record: object }>(
    'SELECT key, host, record FROM sms_send.runs WHERE campaign = $1 ORDER BY seq',
    [id],
  );
  return found.rows;
}
