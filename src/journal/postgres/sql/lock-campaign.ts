// Locks a campaign's row for the transaction that takes its lease: the row as it was, its lease
// as it stands by the server's clock.
import type { Queries } from '../connect.js';
import { LIVE } from './fenced.js';

export interface LeaseRow {
  manifest: unknown;
  fence: string;
  holder: string | null;
  host: string | null;
  live: boolean;
  lease_until: Date | null;
  generation: number;
}

export async function lockCampaign(tx: Queries, id: string): Promise<LeaseRow | undefined> {
  const found = await tx.query<LeaseRow>(
    `SELECT manifest, fence, holder, host, generation, lease_until, ${LIVE} AS live
       FROM sms_send.campaigns WHERE id = $1 FOR UPDATE`,
    [id],
  );
  return found.rows[0];
}
