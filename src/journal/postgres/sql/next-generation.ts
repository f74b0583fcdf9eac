// Sets a held campaign's journal aside (a --force run's start): the next generation is current,
// when the current one has lines. Whether it moved on.
import type { Queries } from '../connect.js';
import type { Fenced } from './fenced.js';

export async function nextGeneration(
  db: Queries,
  lease: Fenced,
  generation: number,
): Promise<boolean> {
  const moved = await db.query(
    `UPDATE sms_send.campaigns SET generation = generation + 1
      WHERE id = $1 AND fence = $2::bigint
        AND EXISTS (SELECT 1 FROM sms_send.journal WHERE campaign = $1 AND generation = $3)`,
    [lease.id, lease.fence, generation],
  );
  return (moved.rowCount ?? 0) > 0;
}
