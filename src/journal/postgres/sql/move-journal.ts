// A held campaign's journal lines (every generation), and what came of them (its delivery reports,
// its report's copy), moved to another campaign: a rehearsal set aside takes them along; nothing
// when another run took the campaign over.
import type { Queries } from '../connect.js';
import type { Fenced } from './fenced.js';

export async function moveJournal(tx: Queries, lease: Fenced, to: string): Promise<void> {
  for (const table of ['journal', 'deliveries', 'report_copies', 'report_parts']) {
    await tx.query(
      `UPDATE sms_send.${table} SET campaign = $3 WHERE campaign = $1
          AND EXISTS (SELECT 1 FROM sms_send.campaigns WHERE id = $1 AND fence = $2::bigint)`,
      [lease.id, lease.fence, to],
    );
  }
}
