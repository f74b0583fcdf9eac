// The campaigns of a store, without a terminal: listed, one shown in full, the finished ones past
// an age pruned (their reports are kept).
import { keptBook, statusCounts } from '../dlr/overlay.js';
import { findCampaign } from '../journal/lookup.js';
import type { CampaignState } from '../journal/open-store.js';
import { outcomeCounts } from '../journal/reading.js';
import type { CampaignEntry, PruneOptions } from '../journal/store.js';
import { parseDuration } from '../shared/duration.js';
import { UsageError } from '../shared/errors.js';
import { takeKeptAnswers } from './kept-answers.js';
import type { ShownCampaign, Standing } from './types.js';

/**
 * A campaign as its --resume will find it: a killed run's counts with the answers its report kept
 * that its journal could not (a full disk), as the stop that ended it and the refusal that follows
 * count them (docs/campaign-state.md#when-the-disk-fails).
 */
async function standing({ store, cache }: CampaignState, entry: CampaignEntry): Promise<Standing> {
  const detail = await store.detail(entry);
  const { journal } = detail;
  if (!journal) return { ...detail, fromReport: 0, inFlight: NONE_IN_FLIGHT };
  const fromReport =
    detail.status === 'interrupted'
      ? await takeKeptAnswers(
          journal,
          entry.manifest.reports.at(-1),
          cache.files(entry.manifest.id).spool,
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
export async function campaignShown(state: CampaignState, id: string): Promise<ShownCampaign> {
  const { store } = state;
  const entry = await findCampaign(store, id);
  const followUps = (await store.campaigns())
    .filter((e) => e.manifest.followUp?.of === entry.manifest.id)
    .map((e) => ({
      id: e.manifest.id,
      status: e.status,
      include: e.manifest.followUp?.include ?? [],
      counts: e.counts,
    }));
  const book = await keptBook(store, entry.manifest.id);
  return {
    ...(await standing(state, entry)),
    followUps,
    ...(book === undefined ? {} : { deliveries: statusCounts(book) }),
  };
}

/** `--older-than` as milliseconds, refused (exit 2) when missing or not a duration. */
export function pruneAge(olderThan: string | undefined): number {
  const ms = olderThan === undefined ? undefined : parseDuration(olderThan);
  if (ms === undefined) {
    throw new UsageError('prune needs --older-than DURATION, e.g. --older-than 90d');
  }
  return ms;
}

/**
 * Removes the state of campaigns finished more than `ageMs` before `now`, and this host's cache of
 * them; their IDs. With `dryRun`, the IDs it would remove, and nothing is; `only` keeps it to them.
 */
export async function pruneFinished(
  { store, cache }: CampaignState,
  ageMs: number,
  now: number,
  options: PruneOptions = {},
): Promise<string[]> {
  const removed = await store.prune(new Date(now - ageMs), options);
  if (!options.dryRun) for (const id of removed) await cache.remove(id);
  return removed;
}
