// Keeps a verified delivery report of a canary's test message (kept once however often it comes),
// and lets go of those of canaries long over: a check waits minutes, not days.
import type { Queries } from '../connect.js';
import type { StoredDelivery } from '../../store.js';

export async function addCanaryReport(db: Queries, report: StoredDelivery): Promise<void> {
  await db.query(
    `WITH gone AS (
       DELETE FROM sms_send.canary_reports WHERE kept_at < now() - interval '7 days'
     )
     INSERT INTO sms_send.canary_reports (message_id, status, timestamp, received_at)
     VALUES ($1, $2, $3, $4)
     ON CONFLICT (message_id, status, timestamp) DO NOTHING`,
    [report.messageId, report.status, report.timestamp ?? '', report.receivedAt],
  );
}
