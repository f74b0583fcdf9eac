// Deletes a held campaign's journal of one generation (a run that sent nothing): nothing when
// another run took the campaign over.
import type { Queries } from '../connect.js';
import type { Fenced } from './fenced.js';

export async function dropJournal(db: Queries, lease: Fenced, generation: number): Promise<void> {
  await db.query(
    `DELETE FROM sms_send.journal WHERE campaign = $1 AND generation = $3
        AND EXISTS (SELECT 1 FROM sms_send.campaigns WHERE id = $1 AND fence = $2::bigint)`,
    [lease.id, lease.fence, generation],
  );
}
