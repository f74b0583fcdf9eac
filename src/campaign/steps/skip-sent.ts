// `--skip-sent-by`: this content sent as a campaign of its own, leaving out every recipient a named
// campaign (and its follow-ups) accepted or may have sent, read from their journals, so that what
// a fixed row, a pilot or a move to the state URL left to send goes out once and nothing twice.
import type { Held } from '../../journal/store.js';
import { findCampaign } from '../../journal/lookup.js';
import { openState } from '../../journal/open-store.js';
import { mergeSent } from '../../journal/sent.js';
import type { CampaignEntry } from '../../journal/store.js';
import type { CampaignStore } from '../../journal/store.js';
import { plural } from '../../shared/count.js';
import { leadingTo, UsageError } from '../../shared/errors.js';
import type { CampaignRun } from '../run.js';

/** A campaign named by --skip-sent-by, and the store that holds it. */
export interface Skipped {
  entry: CampaignEntry;
  store: CampaignStore;
}

/** The recipients a named campaign may have sent to: what this run leaves out. */
export interface SentBy {
  id: string;
  /** MSISDN digits as numbers, sorted and distinct. */
  numbers: Float64Array;
}

/**
 * The campaigns --skip-sent-by names, each found by its ID or the start of it in the run's store,
 * or with a state URL in this host's state directory too (a campaign sent before the move).
 */
export async function resolveSkipped(run: CampaignRun): Promise<Skipped[]> {
  const refs = run.choices.skipSentBy ?? [];
  if (refs.length === 0) return [];
  const stores = storesOf(run);
  const found: Skipped[] = [];
  for (const ref of refs) found.push(await lookUp(stores, ref));
  return found;
}

/** The run's store, and with a state URL this host's state directory (its cache) too. */
export function storesOf(run: CampaignRun): CampaignStore[] {
  const { stateDir, stateUrl, leaseMs } = run.settings;
  return stateUrl === undefined ? [run.store] : [run.store, openState({ stateDir, leaseMs }).store];
}

async function lookUp(stores: readonly CampaignStore[], ref: string): Promise<Skipped> {
  let refusal: unknown;
  for (const store of stores) {
    try {
      return { entry: await findCampaign(store, ref), store };
    } catch (error) {
      // Ambiguous in one store is a refusal; unknown there, the next store is asked.
      if (!(error instanceof UsageError) || error.code !== 'campaign-unknown') throw error;
      refusal ??= error;
    }
  }
  throw new UsageError(
    `--skip-sent-by ${ref}: no such campaign in ${stores.map((s) => s.where).join(' or ')}. ` +
      'Nothing was sent. `sms-send campaigns` lists them.',
    'campaign-unknown',
  );
}

/**
 * Holds each named campaign while this run goes (no run of it sends meanwhile) and reads whom it
 * and its follow-ups may have sent to. A journal that does not name its recipients (written by an
 * earlier sms-send) is refused: left out by guess, a recipient could get the message twice.
 */
export async function readSkipped(
  skipped: readonly Skipped[],
  by: string,
  holds?: Map<string, Held>,
): Promise<SentBy[]> {
  const sets: SentBy[] = [];
  for (const { entry, store } of skipped) {
    const { id } = entry.manifest;
    // A dry run looks without holding anything.
    if (holds) holds.set(id, await store.hold(id, `sending the rest of it as campaign ${by}`));
    const followUps = (await store.campaigns()).filter((e) => e.manifest.followUp?.of === id);
    const lists = [];
    for (const campaign of [entry, ...followUps]) {
      lists.push(await store.sentTo(campaign.manifest.id));
    }
    const sent = mergeSent(lists);
    if (sent.unnamed > 0) {
      throw new UsageError(
        `campaign ${id}'s journal does not name the recipients of ${plural(sent.unnamed, 'record')} ` +
          'it may have sent (an earlier sms-send wrote it): --skip-sent-by cannot tell whom to ' +
          'leave out. Nothing was sent.',
        'not-retryable',
      );
    }
    sets.push({ id, numbers: sent.numbers });
  }
  return sets;
}

/**
 * A campaign whose rest another campaign sent (--skip-sent-by names it) is not continued: its
 * --resume would send that campaign's recipients again. Looked for in every store this run sees.
 */
export async function refuseSuperseded(run: CampaignRun, id: string): Promise<void> {
  for (const store of storesOf(run)) {
    const by = (await store.campaigns()).find((e) => e.manifest.shape?.skipSentBy?.includes(id));
    if (!by) continue;
    const m = by.manifest;
    throw leadingTo(
      new UsageError(
        `campaign ${id} is not continued: campaign ${m.id} (${by.status}, started ` +
          `${m.startedAt.slice(0, 10)}) sent the rest of its content with --skip-sent-by ${id}, ` +
          `and a --resume of ${id} would send its recipients again. Nothing was sent.`,
        'unfinished',
      ),
      { say: 'See how that campaign stands', args: ['campaigns', 'show', m.id] },
    );
  }
}
