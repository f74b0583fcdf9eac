// A campaign's manifest and current journal generation, as a dry run looks at them.
import type { Queries } from '../connect.js';

export async function readCampaign(
  db: Queries,
  id: string,
): Promise<{ manifest: unknown; generation: number } | undefined> {
  const found = await db.query<{ manifest: unknown; generation: number }>(
    'SELECT manifest, generation FROM sms_send.campaigns WHERE id = $1',
    [id],
  );
  return found.rows[0];
}
