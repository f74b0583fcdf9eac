// The campaigns with a manifest (every one, or the one of an ID), with their lease as it stands.
import type { Queries } from '../connect.js';
import { LIVE } from './fenced.js';

export interface CampaignRow {
  id: string;
  manifest: unknown;
  host: string | null;
  holder: string | null;
  live: boolean;
  lease_until: Date | null;
  generation: number;
}

export async function listCampaigns(db: Queries, id?: string): Promise<CampaignRow[]> {
  const result = await db.query<CampaignRow>(
    `SELECT id, manifest, host, holder, lease_until, generation, ${LIVE} AS live
       FROM sms_send.campaigns
      WHERE manifest IS NOT NULL AND ($1::text IS NULL OR id = $1)`,
    [id ?? null],
  );
  return result.rows;
}
