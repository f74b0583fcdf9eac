// Locks a held campaign's row for a transaction of its holder: its manifest, or undefined when
// another run took the campaign over.
import type { Queries } from '../connect.js';
import type { Fenced } from './fenced.js';

export async function lockHeld(
  tx: Queries,
  lease: Fenced,
): Promise<{ manifest: unknown } | undefined> {
  const held = await tx.query<{ manifest: unknown }>(
    'SELECT manifest FROM sms_send.campaigns WHERE id = $1 AND fence = $2::bigint FOR UPDATE',
    [lease.id, lease.fence],
  );
  return held.rows[0];
}
