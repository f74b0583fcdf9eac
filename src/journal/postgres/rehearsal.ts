// A rehearsal set aside in the database: the finished rehearsal's manifest and journal move to a
// campaign of their own, `<id>-rehearsal-N`, as the state directory moves its folder; a report a
// rehearsal wrote where the new run writes its own is renamed, and its campaign told so.
import { resolve } from 'node:path';
import { renameFile } from '../../shared/disk.js';
import { LockedError } from '../../shared/errors.js';
import { asideName, rehearsalReportName } from '../aside.js';
import { rehearsalOf } from '../lookup.js';
import { reportMoved, superseded, type Manifest } from '../manifest.js';
import { HoldLostError } from '../store.js';
import type { Database } from './connect.js';
import type { Lease } from './lease.js';
import type { ClaimPlace } from './place.js';
import { campaignExists } from './sql/campaign-exists.js';
import { copyHeld } from './sql/copy-held.js';
import { lockHeld } from './sql/lock-held.js';
import { moveJournal } from './sql/move-journal.js';
import { writeManifest } from './sql/write-manifest.js';
import { writeUnheldManifest } from './sql/write-unheld-manifest.js';

/** Moves the rehearsal under a name of its own, leaving the campaign held and empty; its new ID. */
export async function setAsideRehearsal(
  db: Database,
  lease: Lease,
  manifest: Manifest,
): Promise<string> {
  return db.transaction(async (tx) => {
    if (!(await lockHeld(tx, lease))) throw new HoldLostError(lease.id);
    let id = '';
    for (let n = 1; id === '' || (await campaignExists(tx, id)); n++) {
      id = `${manifest.id}-rehearsal-${n}`;
    }
    if (!(await copyHeld(tx, lease, id, { ...manifest, id }))) throw new HoldLostError(lease.id);
    await moveJournal(tx, lease, id);
    if (!(await writeManifest(tx, lease, null))) throw new HoldLostError(lease.id);
    return id;
  });
}

/**
 * The report a rehearsal wrote, renamed `<name>.rehearsal.<ext>` (or `.rehearsal-2` …), and its
 * campaign's manifest told so, while no run holds that campaign; undefined when no rehearsal
 * wrote it. Exit 4 when a run holds it now: its report is that run's.
 */
export async function moveRehearsalReport(
  place: ClaimPlace,
  report: string,
): Promise<string | undefined> {
  const path = resolve(report);
  const owner = await rehearsalOf(place, path);
  if (!owner) return undefined;
  const moved = await rehearsalReportName(path);
  await renameFile(path, moved);
  const was = owner.manifest;
  if (await writeUnheldManifest(place.db, was.id, was, reportMoved(was, path, moved))) return moved;
  await renameFile(moved, path);
  throw new LockedError(
    `the report ${path} is rehearsal ${was.id}'s, which another run holds or changed meanwhile; nothing was sent`,
  );
}

/**
 * Records in a held campaign's manifest that campaign `by` sends the rest of its content, by a
 * statement that checks the lease's number: a holder that lost its lease changes nothing.
 */
export async function markSuperseded(db: Database, lease: Lease, by: string): Promise<void> {
  const held = await lockHeld(db, lease);
  if (!held) throw new HoldLostError(lease.id);
  const manifest = held.manifest as Manifest | null;
  if (!manifest) return;
  if (!(await writeManifest(db, lease, superseded(manifest, by)))) {
    throw new HoldLostError(lease.id);
  }
}

/**
 * Sets a held campaign's report aside (the holder's lease on it): renamed with the campaign's ID
 * on this host, and its manifest told so by a statement that checks the lease's number. Undefined
 * when the campaign wrote no such report.
 */
export async function moveReportAside(
  db: Database,
  lease: Lease,
  report: string,
): Promise<string | undefined> {
  const path = resolve(report);
  const held = await lockHeld(db, lease);
  if (!held) throw new HoldLostError(lease.id);
  const manifest = held.manifest as Manifest | null;
  if (!manifest?.reports.includes(path)) return undefined;
  const moved = await asideName(path, lease.id);
  await renameFile(path, moved);
  if (!(await writeManifest(db, lease, reportMoved(manifest, path, moved)))) {
    throw new HoldLostError(lease.id);
  }
  return moved;
}
