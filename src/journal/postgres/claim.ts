// A campaign claimed in the database: its lease taken (exit 4 while another host's is live), its
// state read once and decided as the state directory's is (decide.ts), and what the run changes of
// it, every write under the lease's fencing number.
import { makeFolders } from '../../shared/disk.js';
import { leadingTo, LockedError } from '../../shared/errors.js';
import {
  decided,
  finishedManifest,
  releaseSpool,
  startedManifest,
  type Claim,
  type ClaimOptions,
  type Inspected,
  type LocalFiles,
  type RehearsalAside,
  setAsideRehearsals,
  withDecision,
} from '../claim.js';
import type { StoredState } from '../decide.js';
import { emptyJournalState } from '../journal.js';
import type { Manifest } from '../state.js';
import { HoldLostError } from '../store.js';
import type { Database } from './connect.js';
import { guarded } from './failures.js';
import { DatabaseJournal, readDatabaseJournal, removeReadings } from './journal.js';
import { Lease, takeLease } from './lease.js';
import type { ClaimPlace } from './place.js';
import { moveRehearsalReport, setAsideRehearsal } from './rehearsal.js';

export async function claimInDatabase(place: ClaimPlace, options: ClaimOptions): Promise<Claim> {
  const { id } = options.identity;
  const local = place.local(id);
  await makeFolders(local.dir);
  const taken = await place.db
    .transaction((tx) => takeLease(tx, id, place.leaseMs, 'sending it'))
    .catch((error: unknown) => {
      if (error instanceof LockedError) {
        leadingTo(error, { say: 'See how it stands', args: ['campaigns', 'show', id] });
      }
      throw error;
    });
  const lease = new Lease(place.db, id, taken.fence, place.leaseMs);
  try {
    const state = await readState(place, id, taken.row, local, !taken.created);
    const decision = await decided(place, state, options);
    if (!decision.setAside && decision.fresh && !decision.keepManifest) {
      // Nothing of an earlier run to keep: the journal and manifest of a run that sent nothing go.
      await fenced(
        place.db,
        lease,
        `DELETE FROM sms_send.journal WHERE campaign = $1 AND generation = $3
            AND EXISTS (SELECT 1 FROM sms_send.campaigns WHERE id = $1 AND fence = $2::bigint)`,
        [taken.row.generation],
      );
      await fenced(
        place.db,
        lease,
        'UPDATE sms_send.campaigns SET manifest = NULL WHERE id = $1 AND fence = $2::bigint',
        [],
      );
    }
    return withDecision(
      databaseClaim(place, options, lease, local, taken.row.generation),
      decision,
    );
  } catch (error) {
    lease.stop();
    await letGo(place.db, lease, taken.created).catch(() => undefined);
    throw error;
  }
}

/** What a dry run sees: the state decided, nothing taken. */
export async function inspectInDatabase(
  place: ClaimPlace,
  options: ClaimOptions,
): Promise<Inspected> {
  const { id } = options.identity;
  const found = await place.db.query<{ manifest: Manifest | null; generation: number }>(
    'SELECT manifest, generation FROM sms_send.campaigns WHERE id = $1',
    [id],
  );
  const row = found.rows[0];
  const local = place.local(id);
  const state: StoredState = row
    ? await readState(place, id, row, local, true)
    : { existed: false, archived: false };
  const decision = await decided(place, state, options);
  const previous = decision.keepManifest ? decision.manifest : undefined;
  const kept = previous ? { local, previous } : {};
  if (!decision.finished) return { journal: decision.resumeFrom, ...kept };
  const journal = row
    ? await readDatabaseJournal(place.db, id, row.generation, local.dir)
    : undefined;
  return { journal: journal ?? emptyJournalState(), ...kept };
}

async function readState(
  place: ClaimPlace,
  id: string,
  row: { manifest: unknown; generation: number },
  local: LocalFiles,
  existed: boolean,
): Promise<StoredState> {
  const manifest = (row.manifest ?? undefined) as Manifest | undefined;
  // A finished campaign's manifest has its counts: its refusal, a --force and a --resume with
  // nothing left need no journal.
  const journal =
    manifest?.status === 'finished'
      ? undefined
      : await readDatabaseJournal(place.db, id, row.generation, local.dir);
  const archived = await place.db.query(
    'SELECT 1 FROM sms_send.journal WHERE campaign = $1 AND generation < $2 LIMIT 1',
    [id, row.generation],
  );
  return { existed, manifest, journal, archived: (archived.rowCount ?? 0) > 0 };
}

/** Runs a statement whose $1 is the campaign and $2 the fence; HoldLostError when it matched nothing. */
async function fenced(
  db: Database,
  lease: Lease,
  sql: string,
  rest: readonly unknown[],
  { mustMatch = false } = {},
): Promise<number> {
  const result = await db.query(sql, [lease.id, lease.fence, ...rest]);
  if (mustMatch && result.rowCount === 0) {
    const lost = new HoldLostError(lease.id);
    lease.lose(lost);
    throw lost;
  }
  return result.rowCount ?? 0;
}

/** Gives the campaign up; one this claim made and nothing was kept of goes altogether. */
async function letGo(db: Database, lease: Lease, remove: boolean): Promise<void> {
  if (remove) {
    await db.query(
      'DELETE FROM sms_send.campaigns WHERE id = $1 AND fence = $2::bigint AND manifest IS NULL',
      [lease.id, lease.fence],
    );
  }
  await lease.release();
}

function databaseClaim(
  place: ClaimPlace,
  options: ClaimOptions,
  lease: Lease,
  local: LocalFiles,
  firstGeneration: number,
): Claim {
  const { db } = place;
  const { id } = options.identity;
  let generation = firstGeneration;
  let started = false;
  let current: Manifest | undefined;
  const write = (manifest: Manifest) =>
    fenced(
      db,
      lease,
      'UPDATE sms_send.campaigns SET manifest = $3, updated_at = now() WHERE id = $1 AND fence = $2::bigint',
      [JSON.stringify(manifest)],
      { mustMatch: true },
    );
  const claim: Claim = {
    local,
    finished: false,
    done: false,
    notes: [],
    loadJournal() {
      return guarded(db, async () => {
        claim.journal ??=
          (await readDatabaseJournal(db, id, generation, local.dir)) ?? emptyJournalState();
        return claim.journal;
      });
    },
    readJournal() {
      return guarded(db, async () => {
        return (await readDatabaseJournal(db, id, generation, local.dir)) ?? emptyJournalState();
      });
    },
    archiveJournal() {
      return guarded(db, async () => {
        const moved = await fenced(
          db,
          lease,
          `UPDATE sms_send.campaigns SET generation = generation + 1
            WHERE id = $1 AND fence = $2::bigint
              AND EXISTS (SELECT 1 FROM sms_send.journal WHERE campaign = $1 AND generation = $3)`,
          [generation],
        );
        if (moved > 0) generation++;
      });
    },
    openJournal: () => Promise.resolve(new DatabaseJournal(db, lease)),
    start(fields) {
      return guarded(db, async () => {
        await setAsideRehearsals(claim, options, rehearsalAside(place, lease));
        current = startedManifest(claim.previous, fields);
        await write(current);
        started = true;
        return current;
      });
    },
    finish(update) {
      return guarded(db, async () => {
        if (!current) return;
        current = finishedManifest(current, update, claim.previous);
        await write(current);
      });
    },
    async release() {
      lease.stop();
      const previous = claim.previous;
      const unsent = !started && !previous && !claim.rehearsal;
      await letGo(db, lease, unsent);
      await releaseSpool(local, started || previous ? (current ?? previous)?.status : undefined);
      await removeReadings(local.dir);
    },
  };
  return claim;
}

/** A rehearsal's leftovers set aside in the database, and its report on this host. */
function rehearsalAside(place: ClaimPlace, lease: Lease): RehearsalAside {
  return {
    campaign: (rehearsal) => setAsideRehearsal(place.db, lease, rehearsal),
    report: (path) => moveRehearsalReport(place, path),
  };
}
