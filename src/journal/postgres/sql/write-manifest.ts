// Writes a held campaign's manifest (null: none, as a run that sent nothing leaves it): false when
// another run took the campaign over.
import type { Queries } from '../connect.js';
import type { Fenced } from './fenced.js';

export async function writeManifest(
  db: Queries,
  lease: Fenced,
  manifest: unknown,
): Promise<boolean> {
  const result = await db.query(
    `UPDATE sms_send.campaigns SET manifest = $3::jsonb, updated_at = now()
      WHERE id = $1 AND fence = $2::bigint`,
    [lease.id, lease.fence, manifest === null ? null : JSON.stringify(manifest)],
  );
  return result.rowCount === 1;
}
