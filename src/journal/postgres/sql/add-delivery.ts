// Keeps a verified delivery report of a campaign the database holds, under its current journal
// generation: kept once however often it comes (the gateway sends a report again when no receiver
// answered in time).
import type { Queries } from '../connect.js';
import type { StoredDelivery } from '../../store.js';

/** False when no such campaign is held here (pruned, or never sent from this database). */
export async function addDelivery(
  db: Queries,
  campaign: string,
  report: StoredDelivery,
): Promise<boolean> {
  const result = await db.query(
    `INSERT INTO sms_send.deliveries
       (campaign, generation, message_id, status, timestamp, transaction_id, received_at)
       SELECT id, generation, $2, $3, $4, $5, $6 FROM sms_send.campaigns WHERE id = $1
     ON CONFLICT (campaign, generation, message_id, status, timestamp) DO NOTHING`,
    [
      campaign,
      report.messageId,
      report.status,
      report.timestamp ?? '',
      report.transactionId ?? null,
      report.receivedAt,
    ],
  );
  if (result.rowCount === 1) return true;
  // Kept before (a report sent again), or no such campaign.
  const known = await db.query('SELECT 1 FROM sms_send.campaigns WHERE id = $1', [campaign]);
  return known.rowCount === 1;
}
