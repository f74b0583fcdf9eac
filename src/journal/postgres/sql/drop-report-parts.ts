// Removes the parts of a campaign's report copy, in the transaction of the run that holds it
// (lockHeld checked its fence): a new copy replaces them.
import type { Queries } from '../connect.js';
import type { Fenced } from './fenced.js';

export async function dropReportParts(tx: Queries, lease: Fenced): Promise<void> {
  await tx.query(
    `DELETE FROM sms_send.report_parts WHERE campaign = $1
        AND EXISTS (SELECT 1 FROM sms_send.campaigns WHERE id = $1 AND fence = $2::bigint)`,
    [lease.id, lease.fence],
  );
}
