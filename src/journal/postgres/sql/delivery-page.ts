// A page of a campaign's delivery reports of its current journal generation (those of runs a
// --force run set aside are theirs), in the order they were kept, after a sequence number.
import type { Queries } from '../connect.js';

/** Reports per read: a campaign of millions is read in pieces. */
export const DELIVERY_PAGE = 5000;

export interface DeliveryRow {
  seq: string;
  message_id: string;
  status: string;
  timestamp: string;
  transaction_id: string | null;
  received_at: string;
}

export async function deliveryPage(db: Queries, id: string, after: string): Promise<DeliveryRow[]> {
  // Ordered as a bigint, not as node-postgres's text of one (journal-page.ts).
  const page = await db.query<DeliveryRow>(
    `SELECT seq, message_id, status, timestamp, transaction_id, received_at
       FROM sms_send.deliveries
      WHERE campaign = $1 AND seq > $2::bigint
        AND generation = (SELECT generation FROM sms_send.campaigns WHERE id = $1)
      ORDER BY seq LIMIT ${DELIVERY_PAGE}`,
    [id, after],
  );
  return page.rows;
}
