// Campaigns looked up in a store by what the user or a report names: an exact ID, an unambiguous
// start of one, the rehearsal that wrote a report.
import { resolve } from 'node:path';
import { UsageError } from '../shared/errors.js';
import type { CampaignEntry, CampaignStore } from './store.js';

/** The campaign of that exact ID, when the store has it. */
export async function campaignById(
  store: CampaignStore,
  id: string,
): Promise<CampaignEntry | undefined> {
  return (await store.campaigns({ id }))[0];
}

/** The campaign an ID or an unambiguous start of one names (exit 2 when none or several). */
export async function findCampaign(store: CampaignStore, id: string): Promise<CampaignEntry> {
  return pickCampaign(await store.campaigns(), id, store.where);
}

/** The campaign of `all` an ID or an unambiguous prefix of it names (exit 2 when none or several). */
export function pickCampaign(
  all: readonly CampaignEntry[],
  id: string,
  where: string,
): CampaignEntry {
  const exact = all.find((e) => e.manifest.id === id);
  if (exact) return exact;
  const matches = all.filter((e) => e.manifest.id.startsWith(id));
  if (matches.length === 1) return matches[0]!;
  if (matches.length > 1) {
    throw new UsageError(
      `campaign "${id}" is ambiguous: ${matches.map((e) => e.manifest.id).join(', ')}`,
      'campaign-ambiguous',
    );
  }
  throw new UsageError(`no campaign "${id}" in ${where}`, 'campaign-unknown');
}

/** The campaign (a rehearsal) that wrote a report, if one did. */
export async function rehearsalOf(
  store: { campaigns(): Promise<CampaignEntry[]> },
  report: string,
): Promise<CampaignEntry | undefined> {
  const path = resolve(report);
  return (await store.campaigns()).find(
    (e) => e.manifest.rehearsal === true && e.manifest.reports.includes(path),
  );
}
