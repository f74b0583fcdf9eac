// The campaigns of a store, without a terminal: listed, one shown in full, the finished ones past
// an age pruned (their reports are kept).
import type { CampaignDetail } from '../journal/state.js';
import type { CampaignStore } from '../journal/store.js';
import { parseDuration } from '../shared/duration.js';
import { UsageError } from '../shared/errors.js';

/** A follow-up campaign (`retry`) of the one shown, as `campaigns show` names it. */
export interface FollowUpListed {
  id: string;
  status: CampaignDetail['status'];
  include: string[];
  counts: CampaignDetail['counts'];
}

/** A campaign shown in full: what it set aside, and the follow-ups that re-sent its records. */
export interface ShownCampaign extends CampaignDetail {
  followUps: FollowUpListed[];
}

/** One campaign by its ID or an unambiguous prefix, with what it set aside and its follow-ups. */
export async function campaignShown(store: CampaignStore, id: string): Promise<ShownCampaign> {
  const entry = await store.find(id);
  const followUps = (await store.list())
    .filter((e) => e.manifest.followUp?.of === entry.manifest.id)
    .map((e) => ({
      id: e.manifest.id,
      status: e.status,
      include: e.manifest.followUp?.include ?? [],
      counts: e.counts,
    }));
  return { ...(await store.detail(entry)), followUps };
}

/** `--older-than` as milliseconds, refused (exit 2) when missing or not a duration. */
export function pruneAge(olderThan: string | undefined): number {
  const ms = olderThan === undefined ? undefined : parseDuration(olderThan);
  if (ms === undefined) {
    throw new UsageError('prune needs --older-than DURATION, e.g. --older-than 90d');
  }
  return ms;
}

/** Removes the state of campaigns finished more than `ageMs` before `now`; their IDs. */
export function pruneFinished(store: CampaignStore, ageMs: number, now: number): Promise<string[]> {
  return store.prune(new Date(now - ageMs));
}
