// The campaigns of a state directory, without a terminal: listed, one shown in full, the finished
// ones past an age pruned (their reports are kept).
import {
  campaignDetail,
  findCampaign,
  listCampaigns,
  pruneCampaigns,
  type CampaignDetail,
  type CampaignEntry,
} from '../journal/state.js';
import { parseDuration } from '../shared/duration.js';
import { UsageError } from '../shared/errors.js';

export function campaignsIn(stateDir: string): Promise<CampaignEntry[]> {
  return listCampaigns(stateDir);
}

/** One campaign by its ID or an unambiguous prefix, with what it set aside. */
export async function campaignShown(stateDir: string, id: string): Promise<CampaignDetail> {
  return campaignDetail(await findCampaign(stateDir, id));
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
export function pruneFinished(stateDir: string, ageMs: number, now: Date): Promise<string[]> {
  return pruneCampaigns(stateDir, new Date(now.getTime() - ageMs));
}
