// A rehearsal set aside: when a finished campaign that only ever went to a simulator is sent again
// without --resume (for real, or rehearsed anew), its state moves to a folder of its own,
// `<id>-rehearsal-N`, where `sms-send campaigns` still lists it, and the new run starts with
// nothing behind it. Done when the new run starts sending, never before.
import { rm } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { makeFolders, renameFile, syncFolder } from '../../shared/disk.js';
import { exists, listIfExists } from '../../shared/files.js';
import { asideName, rehearsalReportName } from '../aside.js';
import type { HostCache } from '../cache.js';
import { rehearsalOf } from '../lookup.js';
import { reportMoved, type Manifest } from '../manifest.js';
import {
  campaignPaths,
  listCampaigns,
  readManifest,
  writeManifest,
  type CampaignPaths,
} from './campaigns.js';

/**
 * Moves the rehearsal's files (not the lock, nor the spool the new run validated into) and returns
 * its new ID. The manifest goes last: until it has gone, the folder still says it holds a rehearsal.
 */
export async function setAsideRehearsal(
  stateDir: string,
  cache: HostCache,
  manifest: Manifest,
): Promise<string> {
  const paths = campaignPaths(stateDir, manifest.id);
  const local = cache.files(manifest.id);
  let id = '';
  let target: CampaignPaths | undefined;
  for (let n = 1; !target || (await exists(target.dir)); n++) {
    id = `${manifest.id}-rehearsal-${n}`;
    target = campaignPaths(stateDir, id);
  }
  await makeFolders(target.dir);
  const keep = new Set(
    [paths.lock, paths.manifest, local.spool, local.spoolStamp].map((path) => basename(path)),
  );
  for (const name of await listIfExists(paths.dir)) {
    if (!keep.has(name)) await renameFile(join(paths.dir, name), join(target.dir, name));
  }
  await writeManifest(target.manifest, { ...manifest, id });
  await rm(paths.manifest, { force: true });
  await syncFolder(paths.dir);
  await syncFolder(target.dir);
  return id;
}

/**
 * Sets a held campaign's report aside, under a name with its ID: the report renamed, and its
 * manifest told so, so `report ID` reads that campaign's own rows. The new name, or undefined when
 * it has no such report. The caller holds the campaign's lock.
 */
export async function moveReportAside(
  stateDir: string,
  id: string,
  report: string,
): Promise<string | undefined> {
  const paths = campaignPaths(stateDir, id);
  const manifest = await readManifest(paths.manifest);
  const path = resolve(report);
  if (!manifest?.reports.includes(path)) return undefined;
  const moved = await asideName(path, id);
  await renameFile(path, moved);
  await writeManifest(paths.manifest, reportMoved(manifest, path, moved));
  return moved;
}

/**
 * A report a rehearsal wrote, where a new run of the campaign would write its own: renamed
 * `<name>.rehearsal.<ext>` (or `.rehearsal-2` …) and its campaign's manifest told so. Returns the
 * new name, or undefined when no rehearsal wrote that report (then it is the run's to refuse).
 */
export async function moveRehearsalReport(
  stateDir: string,
  report: string,
): Promise<string | undefined> {
  const path = resolve(report);
  const owner = await rehearsalOf({ campaigns: () => listCampaigns(stateDir) }, path);
  if (!owner) return undefined;
  const moved = await rehearsalReportName(path);
  await renameFile(path, moved);
  await writeManifest(
    campaignPaths(stateDir, owner.manifest.id).manifest,
    reportMoved(owner.manifest, path, moved),
  );
  return moved;
}
