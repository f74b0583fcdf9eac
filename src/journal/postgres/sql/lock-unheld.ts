// Locks a campaign's row for a transaction that changes it while no run holds it (a delivery
// report's fold): its manifest and current generation, and whether a run holds it after all.
import type { Queries } from '../connect.js';
import { LIVE } from './fenced.js';

export async function lockUnheld(
  tx: Queries,
  id: string,
): Promise<{ manifest: unknown; generation: number; live: boolean } | undefined> {
  const found = await tx.query<{ manifest: unknown; generation: number; live: boolean }>(
    `SELECT manifest, generation, ${LIVE} AS live FROM sms_send.campaigns WHERE id = $1 FOR UPDATE`,
    [id],
  );
  return found.rows[0];
}
