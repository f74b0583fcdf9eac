// A campaign claimed in the database: its lease taken (exit 4 while another host's is live), its
// state read once and decided as the state directory's is (claim-rules.ts), and what the run
// changes of it, every write under the lease's fencing number.
import { makeFolders } from '../../shared/disk.js';
import { leadingTo, LockedError } from '../../shared/errors.js';
import { decided, foundOf, setAsideRehearsals } from '../claim-rules.js';
import type { ClaimOptions, StoredState } from '../decide.js';
import { finishedManifest, startedManifest, type Manifest } from '../manifest.js';
import { emptyJournalState } from '../reading.js';
import { HoldLostError, type Claim, type Found, type Inspected } from '../store.js';
import { guarded } from './failures.js';
import { DatabaseJournal, readDatabaseJournal } from './journal.js';
import { Lease, takeCampaign } from './lease.js';
import type { ClaimPlace } from './place.js';
import { moveRehearsalReport, setAsideRehearsal } from './rehearsal.js';
import { dropJournal } from './sql/drop-journal.js';
import { dropUnkept } from './sql/drop-unkept.js';
import { hasArchived } from './sql/has-archived.js';
import { keepRun } from './sql/keep-run.js';
import { nextGeneration } from './sql/next-generation.js';
import { keepReport } from './report-copy.js';
import { readCampaign } from './sql/read-campaign.js';
import { writeManifest } from './sql/write-manifest.js';

export async function claimInDatabase(place: ClaimPlace, options: ClaimOptions): Promise<Claim> {
  const { id } = options.identity;
  await makeFolders(place.cache.files(id).dir);
  const taken = await place.db
    .transaction((tx) => takeCampaign(tx, id, place.leaseMs, 'sending it'))
    .catch((error: unknown) => {
      if (error instanceof LockedError) {
        leadingTo(error, { say: 'See how it stands', args: ['campaigns', 'show', id] });
      }
      throw error;
    });
  const lease = new Lease(place.db, id, taken.fence, place.leaseMs);
  try {
    const state = await readState(place, id, taken.row, !taken.created);
    const decision = await decided(place, state, options);
    if (!decision.setAside && decision.fresh && !decision.keepManifest) {
      // Nothing of an earlier run to keep: the journal and manifest of a run that sent nothing go.
      await dropJournal(place.db, lease, taken.row.generation);
      await writeManifest(place.db, lease, null);
    }
    return databaseClaim(place, options, lease, taken.row.generation, foundOf(decision));
  } catch (error) {
    lease.stop();
    await letGo(place, lease, taken.created).catch(() => undefined);
    throw error;
  }
}

/** What a dry run sees: the state decided, nothing taken. */
export async function inspectInDatabase(
  place: ClaimPlace,
  options: ClaimOptions,
): Promise<Inspected> {
  const { id } = options.identity;
  const row = await readCampaign(place.db, id);
  const state: StoredState = row
    ? await readState(place, id, row, true)
    : { existed: false, archived: false };
  const found = foundOf(await decided(place, state, options));
  if (!found.finished) return { found };
  const journal = row
    ? await readDatabaseJournal(place.db, id, row.generation, reading(place, id))
    : undefined;
  return { found: { ...found, journal: journal ?? emptyJournalState() } };
}

/** A new reading of the campaign's journal, in this host's cache. */
function reading(place: ClaimPlace, id: string): () => Promise<string> {
  return () => place.cache.reading(id);
}

async function readState(
  place: ClaimPlace,
  id: string,
  row: { manifest: unknown; generation: number },
  existed: boolean,
): Promise<StoredState> {
  const manifest = (row.manifest ?? undefined) as Manifest | undefined;
  // A finished campaign's manifest has its counts: its refusal, a --force and a --resume with
  // nothing left need no journal.
  const journal =
    manifest?.status === 'finished'
      ? undefined
      : await readDatabaseJournal(place.db, id, row.generation, reading(place, id));
  const archived = await hasArchived(place.db, id, row.generation);
  return { existed, manifest, journal, archived };
}

/** Gives the campaign up; one this claim made and nothing was kept of goes altogether. */
async function letGo(place: ClaimPlace, lease: Lease, remove: boolean): Promise<void> {
  if (remove) await dropUnkept(place.db, lease);
  await lease.release();
}

/** Writes the manifest under the lease: HoldLostError when another run took the campaign over. */
async function written(place: ClaimPlace, lease: Lease, manifest: Manifest): Promise<void> {
  if (await writeManifest(place.db, lease, manifest)) return;
  const lost = new HoldLostError(lease.id);
  lease.lose(lost);
  throw lost;
}

function databaseClaim(
  place: ClaimPlace,
  options: ClaimOptions,
  lease: Lease,
  firstGeneration: number,
  found: Found,
): Claim {
  const { db } = place;
  const { id } = options.identity;
  const previous = found.previous;
  let rehearsal = found.rehearsal;
  let generation = firstGeneration;
  let current: Manifest | undefined;
  return {
    found,
    readJournal() {
      return guarded(db, async () => {
        return (
          (await readDatabaseJournal(db, id, generation, reading(place, id))) ?? emptyJournalState()
        );
      });
    },
    openJournal(freshAt) {
      return guarded(db, async () => {
        if (freshAt !== undefined && (await nextGeneration(db, lease, generation))) generation++;
        return new DatabaseJournal(db, lease);
      });
    },
    start(fields) {
      return guarded(db, async () => {
        const notes = await setAsideRehearsals(rehearsal, options.rehearsalReport, {
          campaign: (manifest) => setAsideRehearsal(db, lease, manifest),
          report: (path) => moveRehearsalReport(place, path),
        });
        rehearsal = undefined;
        const started = startedManifest(previous, fields);
        await written(place, lease, started);
        current = started;
        return notes;
      });
    },
    finish(update, report) {
      return guarded(db, async () => {
        if (!current) return;
        current = finishedManifest(current, update, previous);
        await written(place, lease, current);
        // After the manifest, and never its failure: the run ended as it says whether or not its
        // report could be kept (the copy names its run, so an older one is not taken for it).
        if (report === undefined) return;
        await keepReport(db, lease, { path: report, run: current.runs }).catch((error: unknown) => {
          if (error instanceof HoldLostError) throw error;
        });
      });
    },
    keepRun({ key, host, data }) {
      // A run taken over keeps nothing more: what the page tells of it is what it kept before.
      return guarded(db, async () => {
        await keepRun(db, lease, { key, host, record: data });
      });
    },
    async release() {
      lease.stop();
      const unsent = !current && !previous && !rehearsal;
      await letGo(place, lease, unsent);
      await place.cache.releaseSpool(id, (current ?? previous)?.status);
    },
  };
}
