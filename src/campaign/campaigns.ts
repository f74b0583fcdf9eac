// The campaigns of a store, without a terminal: listed, one shown in full, the finished ones past
// an age pruned (their reports are kept).
import { localFilesIn, outcomeCounts, type CampaignEntry } from '../journal/state.js';
import type { CampaignStore } from '../journal/store.js';
import { parseDuration } from '../shared/duration.js';
import { UsageError } from '../shared/errors.js';
import { takeKeptAnswers } from './kept-answers.js';
import type { ShownCampaign, Standing } from './types.js';

/**
 * A campaign as its --resume will find it: a killed run's counts with the answers its report kept
 * that its journal could not (a full disk), as the stop that ended it and the refusal that follows
 * count them (docs/campaign-state.md#when-the-disk-fails).
 */
async function standing(store: CampaignStore, entry: CampaignEntry): Promise<Standing> {
  const detail = await store.detail(entry);
  const { journal } = detail;
  if (!journal) return { ...detail, fromReport: 0, inFlight: NONE_IN_FLIGHT };
  const fromReport =
    detail.status === 'interrupted'
      ? await takeKeptAnswers(
          journal,
          entry.manifest.reports.at(-1),
          localFilesIn(entry.localDir).spool,
        )
      : 0;
  const notKnownToHaveLeft = journal.unposted.size;
  const sentWithoutAnswer = journal.inFlight.size - notKnownToHaveLeft;
  return {
    ...detail,
    counts: outcomeCounts(journal),
    fromReport,
    inFlight: { sentWithoutAnswer, notKnownToHaveLeft },
  };
}

const NONE_IN_FLIGHT = { sentWithoutAnswer: 0, notKnownToHaveLeft: 0 };

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
  return { ...(await standing(store, entry)), followUps };
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
