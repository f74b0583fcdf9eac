// Replaces the manifest of a campaign no run holds, if it is still the one read (`was`): false
// when a run holds it now, or another changed it meanwhile.
import type { Queries } from '../connect.js';
import { LIVE } from './fenced.js';

export async function writeUnheldManifest(
  db: Queries,
  id: string,
  was: unknown,
  manifest: unknown,
): Promise<boolean> {
  const result = await db.query(
    `UPDATE sms_send.campaigns SET manifest = $3::jsonb, updated_at = now()
      WHERE id = $1 AND manifest = $2::jsonb AND NOT ${LIVE}`,
    [id, JSON.stringify(was), JSON.stringify(manifest)],
  );
  return result.rowCount === 1;
}
