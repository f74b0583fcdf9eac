// The state directory's campaigns: one folder each, with its manifest, journal and lock, listed,
// shown and pruned from what each folder holds.
import { constants } from 'node:fs';
import { access, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { makeFolders } from '../../shared/disk.js';
import { describeSystemError, UsageError } from '../../shared/errors.js';
import { exists, listIfExists, readIfExists, replaceFile } from '../../shared/files.js';
import { lockIsHeld } from '../lock.js';
import { parseManifest, superseded, type CampaignStatus, type Manifest } from '../manifest.js';
import { outcomeCounts, readJournalFile } from '../reading.js';
import {
  countedFromJournal,
  type CampaignDetail,
  type CampaignEntry,
  type PruneOptions,
} from '../store.js';
import { ARCHIVED_JOURNAL } from './journal.js';

/** A campaign's folder, and its state in it (its cache is there too: cache.ts). */
export interface CampaignPaths {
  dir: string;
  manifest: string;
  journal: string;
  lock: string;
  /** The campaign's runs for its page (Claim.keepRun). */
  runs: string;
}

export function campaignPaths(stateDir: string, id: string): CampaignPaths {
  const dir = join(stateDir, 'campaigns', id);
  return {
    dir,
    manifest: join(dir, 'manifest.json'),
    journal: join(dir, 'journal.ndjson'),
    lock: join(dir, 'lock'),
    runs: join(dir, 'timeline.json'),
  };
}

/** Creates the state directory if needed; one that cannot be written stops the run before anything is sent. */
export async function ensureStateDir(stateDir: string): Promise<void> {
  try {
    await makeFolders(join(stateDir, 'campaigns'));
    await access(join(stateDir, 'campaigns'), constants.W_OK | constants.X_OK);
  } catch (error) {
    throw stateDirError(stateDir, error);
  }
}

/**
 * What ensureStateDir would refuse a real run with, found without creating anything: a dry run
 * says it too. The nearest folder that exists must be writable, on a file system that is.
 */
export async function stateDirProblem(stateDir: string): Promise<UsageError | undefined> {
  let folder = join(stateDir, 'campaigns');
  while (!(await exists(folder)) && dirname(folder) !== folder) folder = dirname(folder);
  return access(folder, constants.W_OK | constants.X_OK).then(
    () => undefined,
    (error: unknown) => stateDirError(stateDir, error),
  );
}

function stateDirError(stateDir: string, error: unknown): UsageError {
  return new UsageError(
    `the state directory ${stateDir} cannot be written: ${describeSystemError(error)}; nothing was sent. ` +
      'Point --state-dir, SMS_SEND_STATE_DIR or "stateDir" in the config at a writable folder.',
    'state-unwritable',
  );
}

export async function readManifest(path: string): Promise<Manifest | undefined> {
  const text = await readIfExists(path);
  return text === undefined ? undefined : parseManifest(text, path);
}

/** Written whole and durable: a crash leaves the old manifest or the new one, never half. */
export async function writeManifest(path: string, manifest: Manifest): Promise<void> {
  await replaceFile(path, `${JSON.stringify(manifest, null, 2)}\n`, { durable: true });
}

/**
 * Records in a held campaign's manifest that campaign `by` sends the rest of its content. The
 * caller holds the campaign's lock.
 */
export async function markSuperseded(stateDir: string, id: string, by: string): Promise<void> {
  const { manifest: path } = campaignPaths(stateDir, id);
  const manifest = await readManifest(path);
  if (manifest) await writeManifest(path, superseded(manifest, by));
}

/** A running campaign whose lock has no live owner was killed: it is interrupted. */
export async function effectiveStatus(
  manifest: Manifest,
  paths: CampaignPaths,
): Promise<CampaignStatus> {
  if (manifest.status !== 'running') return manifest.status;
  return (await lockIsHeld(paths.lock)) ? 'running' : 'interrupted';
}

/**
 * Every campaign with a manifest, newest first, from the manifests alone: a list of hundreds of
 * campaigns never reads a journal (they grow with every record).
 */
export async function listCampaigns(stateDir: string): Promise<CampaignEntry[]> {
  const names = await listIfExists(join(stateDir, 'campaigns'));
  const entries: CampaignEntry[] = [];
  for (const name of names) {
    const entry = await campaignEntry(stateDir, name).catch(() => undefined);
    if (entry) entries.push(entry);
  }
  return entries.sort((a, b) => (a.manifest.startedAt < b.manifest.startedAt ? 1 : -1));
}

/** The campaign of that exact ID, when its manifest is there. */
export async function campaignEntry(
  stateDir: string,
  id: string,
): Promise<CampaignEntry | undefined> {
  const paths = campaignPaths(stateDir, id);
  const manifest = await readManifest(paths.manifest);
  if (!manifest) return undefined;
  const status = await effectiveStatus(manifest, paths);
  return { manifest, status, where: paths.dir, counts: manifest.counts };
}

/**
 * The counts of a campaign still running, or killed mid-run, from its journal (its manifest was
 * last written when a run started), and the journals --force runs set aside beside it.
 */
export async function campaignDetail(
  stateDir: string,
  entry: CampaignEntry,
): Promise<CampaignDetail> {
  const paths = campaignPaths(stateDir, entry.manifest.id);
  const setAside = { journals: 0, bytes: 0 };
  for (const name of await listIfExists(paths.dir)) {
    if (!ARCHIVED_JOURNAL.test(name)) continue;
    const info = await stat(join(paths.dir, name)).catch(() => undefined);
    setAside.journals++;
    setAside.bytes += info?.size ?? 0;
  }
  // A run that ended (a Ctrl-C'd one too) wrote its counts, the invalid and skipped rows the
  // journal never holds among them: only a run still sending, or killed, is counted from it.
  if (!countedFromJournal(entry)) return { ...entry, countedFromJournal: false, setAside };
  const journal = await readJournalFile(paths.journal).catch(() => undefined);
  if (!journal) return { ...entry, countedFromJournal: false, setAside };
  return { ...entry, counts: outcomeCounts(journal), countedFromJournal: true, journal, setAside };
}

/**
 * Removes the state of finished campaigns that finished before `before`, and of folders a run left
 * without a manifest (it sent nothing) whose lock is not held. Unfinished campaigns are kept: their
 * journal is what lets --resume finish them without sending twice.
 */
export async function pruneCampaigns(
  stateDir: string,
  before: Date,
  { dryRun = false, only }: PruneOptions = {},
): Promise<string[]> {
  const names = await listIfExists(join(stateDir, 'campaigns'));
  const removed: string[] = [];
  for (const name of names) {
    if (only && !only.includes(name)) continue;
    const paths = campaignPaths(stateDir, name);
    const manifest = await readManifest(paths.manifest).catch(() => undefined);
    let prune: boolean;
    if (manifest) {
      prune =
        manifest.status === 'finished' &&
        new Date(manifest.finishedAt ?? manifest.updatedAt).getTime() < before.getTime();
    } else {
      const info = await stat(paths.dir).catch(() => undefined);
      prune =
        info !== undefined &&
        info.mtime.getTime() < before.getTime() &&
        !(await lockIsHeld(paths.lock));
    }
    // A live run may be validating before it marks the manifest running.
    if (prune && manifest && (await lockIsHeld(paths.lock))) prune = false;
    if (prune) {
      if (!dryRun) await rm(paths.dir, { recursive: true, force: true });
      removed.push(name);
    }
  }
  return removed;
}
