// `--skip-sent-by`: this content sent as a campaign of its own, leaving out every recipient a named
// campaign (and every campaign linked to it: those it left out in turn, those that left it out, and
// their follow-ups) accepted or may have sent, read from their journals, so that what a fixed row,
// a pilot or a move to the state URL left to send goes out once and nothing twice.
import { SupersededRefusal } from '../../journal/decide.js';
import { pickCampaign } from '../../journal/lookup.js';
import { openState } from '../../journal/open-store.js';
import { mergeSent, type SentTo } from '../../journal/sent.js';
import type { CampaignEntry, CampaignStore, Held } from '../../journal/store.js';
import { plural } from '../../shared/count.js';
import { UsageError } from '../../shared/errors.js';
import type { CampaignRun } from '../run.js';

/** A recorded campaign, and the store that holds it. */
export interface Stored {
  entry: CampaignEntry;
  store: CampaignStore;
}

/** A campaign named by --skip-sent-by, and the store that holds it. */
export type Skipped = Stored;

/** The recipients a campaign, and the campaigns linked to it, may have sent to. */
export interface SentBy {
  id: string;
  /** MSISDN digits as numbers, sorted and distinct. */
  numbers: Float64Array;
  /** The linked campaigns whose recipients are among them (not the campaign itself). */
  linked: readonly string[];
}

/** The campaigns linked to some, as the stores a run sees record them. */
export interface Linked {
  /** The campaigns themselves and every one linked to them, as recorded. */
  members: Stored[];
  /** IDs a link names that no store here holds any more (pruned): whom they sent to is lost. */
  missing: string[];
}

/**
 * The campaigns of the stores a run sees, listed when first asked (their manifests only), and whom
 * each may have sent to, read from its journals at most once a run: a journal grows with every
 * record, and a campaign linked to several others would otherwise be read for each.
 */
export class Recorded {
  private listed: Promise<Stored[]> | undefined;
  private readonly read = new Map<string, Promise<SentTo>>();
  /** The stores, made once: a campaign is found by the very store it was listed from. */
  private readonly stores: CampaignStore[];

  constructor(private readonly run: CampaignRun) {
    this.stores = storesOf(run);
  }

  entries(): Promise<Stored[]> {
    this.listed ??= listAll(this.run, this.stores);
    return this.listed;
  }

  /** Lists the campaigns again, for what other runs changed meanwhile (before anything is read). */
  refresh(): void {
    this.listed = undefined;
  }

  /** A campaign by its ID or the start of it: in the run's store, else in this host's. */
  async find(ref: string): Promise<Stored> {
    const all = await this.entries();
    const { stores } = this;
    for (const store of stores) {
      const own = all.filter((s) => s.store === store);
      try {
        const entry = pickCampaign(
          own.map((s) => s.entry),
          ref,
          store.where,
        );
        return { entry, store };
      } catch (error) {
        // Ambiguous in one store is a refusal; unknown there, the next store is asked.
        if (!(error instanceof UsageError) || error.code !== 'campaign-unknown') throw error;
      }
    }
    throw new UsageError(
      `--skip-sent-by ${ref}: no such campaign in ${stores.map((s) => s.where).join(' or ')}. ` +
        'Nothing was sent. `sms-send campaigns` lists them.',
      'campaign-unknown',
    );
  }

  /**
   * `ids` and every campaign linked to them, however far: one that named another with
   * --skip-sent-by (either way) or follows it up (`retry`), since each sent part of the same
   * content to the same people. `apart` (this run's own campaign) is neither taken nor gone
   * through: its own follow-ups are its own business.
   */
  async linked(ids: readonly string[], apart?: string): Promise<Linked> {
    const all = await this.entries();
    const links = new Map<string, Set<string>>();
    const link = (a: string, b: string) => {
      for (const [from, to] of [
        [a, b],
        [b, a],
      ] as const) {
        const set = links.get(from) ?? new Set<string>();
        set.add(to);
        links.set(from, set);
      }
    };
    for (const { entry } of all) {
      const m = entry.manifest;
      for (const named of m.shape?.skipSentBy ?? []) link(m.id, named);
      for (const by of m.supersededBy ?? []) link(m.id, by);
      if (m.followUp) link(m.id, m.followUp.of);
    }
    const seen = new Set(ids);
    const queue = [...ids];
    for (let id = queue.pop(); id !== undefined; id = queue.pop()) {
      for (const next of links.get(id) ?? []) {
        if (next === apart || seen.has(next)) continue;
        seen.add(next);
        queue.push(next);
      }
    }
    const members = all.filter((s) => seen.has(s.entry.manifest.id));
    const held = new Set(members.map((s) => s.entry.manifest.id));
    return { members, missing: [...seen].filter((id) => !held.has(id)).sort() };
  }

  /**
   * Whom `id` and the campaigns linked to it may have sent to. A run that reaches phones leaves
   * out no rehearsal's recipients: a simulator's messages reached nobody.
   */
  async sentBy(
    id: string,
    apart: string,
    real: boolean,
  ): Promise<SentBy & { unnamed: number; missing: string[] }> {
    const { members, missing } = await this.linked([id], apart);
    const counted = members.filter((s) => !real || s.entry.manifest.rehearsal !== true);
    const lists = [];
    for (const stored of counted) lists.push(await this.sentTo(stored));
    const sent = mergeSent(lists);
    const linked = [
      ...new Set([...counted.map((s) => s.entry.manifest.id), ...missing].filter((m) => m !== id)),
    ];
    return { id, numbers: sent.numbers, linked, unnamed: sent.unnamed, missing };
  }

  private sentTo({ entry, store }: Stored): Promise<SentTo> {
    const key = `${store.where}\n${entry.manifest.id}`;
    let read = this.read.get(key);
    if (!read) {
      read = store.sentTo(entry.manifest.id);
      this.read.set(key, read);
    }
    return read;
  }
}

/** Every campaign of the stores the run sees; this host's beside a state URL only if readable. */
async function listAll(run: CampaignRun, stores: readonly CampaignStore[]): Promise<Stored[]> {
  const all: Stored[] = [];
  for (const store of stores) {
    // This host's state directory beside a state URL is a cache: one that cannot be read has
    // no campaign to name.
    const entries =
      store === run.store ? await store.campaigns() : await store.campaigns().catch(() => []);
    for (const entry of entries) all.push({ entry, store });
  }
  return all;
}

/**
 * The campaigns --skip-sent-by names, each found by its ID or the start of it in the run's store,
 * or with a state URL in this host's state directory too (a campaign sent before the move).
 */
export async function resolveSkipped(run: CampaignRun, recorded: Recorded): Promise<Skipped[]> {
  const refs = run.choices.skipSentBy ?? [];
  const found: Skipped[] = [];
  for (const ref of refs) found.push(await recorded.find(ref));
  return found;
}

/** The run's store, and with a state URL this host's state directory (its cache) too. */
export function storesOf(run: CampaignRun): CampaignStore[] {
  const { stateDir, stateUrl, leaseMs } = run.settings;
  return stateUrl === undefined ? [run.store] : [run.store, openState({ stateDir, leaseMs }).store];
}

/** Whom a run leaves out (--skip-sent-by), and what it should say of it. */
export interface SkipSet {
  sentBy: SentBy[];
  notes: string[];
}

/**
 * Holds each named campaign while this run (`by`) goes (no run of it sends meanwhile) and reads
 * whom it, and every campaign linked to it, may have sent to. A journal that does not name its
 * recipients (written by an earlier sms-send) is refused: left out by guess, a recipient could
 * get the message twice.
 */
export async function readSkipped(
  skipped: readonly Skipped[],
  by: string,
  recorded: Recorded,
  options: { real: boolean; holds?: Map<string, Held> },
): Promise<SkipSet> {
  const { holds, real } = options;
  const rehearsal = skipped.find((s) => real && s.entry.manifest.rehearsal === true);
  if (rehearsal) throw rehearsalNamed(rehearsal.entry.manifest.id);
  // A dry run looks without holding anything.
  for (const { entry, store } of skipped) {
    const { id } = entry.manifest;
    if (holds) holds.set(id, await store.hold(id, `sending the rest of it as campaign ${by}`));
  }
  // Held now: what is read of them stays true while this run goes.
  if (holds) recorded.refresh();
  const set: SkipSet = { sentBy: [], notes: [] };
  for (const { entry } of skipped) {
    const { id } = entry.manifest;
    const { unnamed, missing, ...sent } = await recorded.sentBy(id, by, real);
    if (unnamed > 0) {
      throw new UsageError(
        `campaign ${id}'s journal does not name the recipients of ${plural(unnamed, 'record')} ` +
          'it may have sent (an earlier sms-send wrote it): --skip-sent-by cannot tell whom to ' +
          'leave out. Nothing was sent.',
        'recipients-unknown',
      );
    }
    set.sentBy.push(sent);
    set.notes.push(...missingNotes(id, missing));
  }
  return set;
}

/**
 * A run that reaches phones naming a rehearsal: its messages went to a simulator, so there is no
 * rest to send; left out by it, nobody would be, and the user meant someone.
 */
function rehearsalNamed(id: string): UsageError {
  return new UsageError(
    `--skip-sent-by ${id} names a rehearsal (sent to a simulator only): it reached nobody, so ` +
      'there is no rest of it to send. Nothing was sent. Without --skip-sent-by, this content is ' +
      'sent to every recipient.',
    'usage',
  );
}

/**
 * Campaigns linked to `id` that are no longer recorded: whom they sent to cannot be left out. One
 * note however many: a long chain pruned would otherwise fill the terminal.
 */
function missingNotes(id: string, missing: readonly string[]): string[] {
  if (missing.length === 0) return [];
  const named =
    missing.length === 1
      ? `campaign ${missing[0]}, linked to campaign ${id} by --skip-sent-by or retry, is`
      : `${plural(missing.length, 'campaign')} linked to campaign ${id} by --skip-sent-by or ` +
        `retry (${missing.at(-1)} among them) are`;
  return [
    `note: ${named} no longer recorded (pruned): whom ${missing.length === 1 ? 'it' : 'they'} ` +
      'sent to is not known, and not left out',
  ];
}

/**
 * A campaign whose rest another campaign sent (--skip-sent-by names it) is not continued: its
 * --resume, --once or retry would send that campaign's recipients again. Its own manifest says so
 * (written under the other run's hold on it); a campaign of any store this run sees that names it
 * says so too, for a manifest written before that was recorded. A rehearsal's messages reached
 * nobody: it supersedes only a rehearsal.
 */
export async function refuseSuperseded(recorded: Recorded, id: string): Promise<void> {
  const all = await recorded.entries();
  const own = all.find((s) => s.entry.manifest.id === id);
  if (!own) return;
  const rehearsal = own.entry.manifest.rehearsal === true;
  const by = new Set(own.entry.manifest.supersededBy);
  for (const { entry } of all) {
    const m = entry.manifest;
    if (m.shape?.skipSentBy?.includes(id) && (rehearsal || m.rehearsal !== true)) by.add(m.id);
  }
  if (by.size === 0) return;
  const manifest = { ...own.entry.manifest, supersededBy: [...by] };
  throw new SupersededRefusal(manifest, own.entry.status);
}

/**
 * Writes into each campaign in `holds` (those this run names and holds) that this campaign (`by`)
 * sends the rest of its content, before anything is sent: from then on it is not continued,
 * wherever this campaign is recorded, and even once this campaign is pruned.
 */
export async function markSuperseded(holds: readonly Held[], by: string): Promise<void> {
  for (const held of holds) await held.supersede(by);
}
