// A rehearsal set aside: when a finished campaign that only ever went to a simulator is sent again
// without --resume (for real, or rehearsed anew), its state moves to a folder of its own,
// `<id>-rehearsal-N`, where `sms-send campaigns` still lists it, and the new run starts with
// nothing behind it. Done when the new run starts sending, never before.
import { rm } from 'node:fs/promises';
import { basename, extname, join, resolve } from 'node:path';
import { makeFolders, renameFile, syncFolder } from '../shared/disk.js';
import { exists, listIfExists } from '../shared/files.js';
import {
  campaignPaths,
  listCampaigns,
  readManifest,
  writeManifest,
  type CampaignPaths,
  type Manifest,
} from './state.js';

/**
 * Moves the rehearsal's files (not the lock, nor the spool the new run validated into) and returns
 * its new ID. The manifest goes last: until it has gone, the folder still says it holds a rehearsal.
 */
export async function setAsideRehearsal(
  stateDir: string,
  paths: CampaignPaths,
  manifest: Manifest,
): Promise<string> {
  let id = '';
  let target: CampaignPaths | undefined;
  for (let n = 1; !target || (await exists(target.dir)); n++) {
    id = `${manifest.id}-rehearsal-${n}`;
    target = campaignPaths(stateDir, id);
  }
  await makeFolders(target.dir);
  const keep = new Set(
    [paths.lock, paths.manifest, paths.spool, paths.spoolStamp].map((path) => basename(path)),
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

/** The campaign (a rehearsal) that wrote a report, if one did. */
export async function rehearsalOf(
  stateDir: string,
  report: string,
): Promise<Awaited<ReturnType<typeof listCampaigns>>[number] | undefined> {
  const path = resolve(report);
  return (await listCampaigns(stateDir)).find(
    (e) => e.manifest.rehearsal === true && e.manifest.reports.includes(path),
  );
}

/** A free name for a rehearsal's report set aside: `<name>.rehearsal.<ext>`, `.rehearsal-2` … */
export function rehearsalReportName(path: string): Promise<string> {
  return asideName(path, 'rehearsal');
}

/**
 * A free name for a report set aside, with `tag` (a rehearsal's, or its campaign's ID) in it:
 * `<name>.<tag>.report.<ext>`, `<name>.<tag>-2.report.<ext>` …
 */
export async function asideName(path: string, tag: string): Promise<string> {
  const ext = extname(path);
  const stem = path.slice(0, path.length - ext.length).replace(/\.report$/, '');
  let moved = '';
  for (let n = 1; moved === '' || (await exists(moved)); n++) {
    moved = `${stem}.${tag}${n === 1 ? '' : `-${n}`}${ext === '' ? '' : `.report${ext}`}`;
  }
  return moved;
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
  const reports = manifest.reports.map((r) => (r === path ? moved : r));
  await writeManifest(paths.manifest, { ...manifest, reports });
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
  const owner = await rehearsalOf(stateDir, path);
  if (!owner) return undefined;
  const moved = await rehearsalReportName(path);
  await renameFile(path, moved);
  const reports = owner.manifest.reports.map((r) => (r === path ? moved : r));
  await writeManifest(campaignPaths(stateDir, owner.manifest.id).manifest, {
    ...owner.manifest,
    reports,
  });
  return moved;
}
