// The delivery reports kept for one canary's test message, in the order they were kept.
import type { Queries } from '../connect.js';

export interface CanaryRow {
  status: string;
  timestamp: string;
  received_at: string;
}

export async function canaryReports(db: Queries, messageId: string): Promise<CanaryRow[]> {
  const kept = await db.query<CanaryRow>(
    `SELECT status, timestamp, received_at FROM sms_send.canary_reports
      WHERE message_id = $1 ORDER BY seq`,
    [messageId],
  );
  return kept.rows;
}
