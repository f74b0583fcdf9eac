// Makes a campaign's row, empty and held by no one, unless it has one: true when it was made.
import type { Queries } from '../connect.js';

export async function addCampaign(tx: Queries, id: string): Promise<boolean> {
  const inserted = await tx.query(
    'INSERT INTO sms_send.campaigns (id) VALUES ($1) ON CONFLICT (id) DO NOTHING',
    [id],
  );
  return inserted.rowCount === 1;
}
