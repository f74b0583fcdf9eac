// The state directory: one folder per campaign with its manifest, journal, lock and spool.
import { constants } from 'node:fs';
import { access, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { makeFolders } from '../shared/disk.js';
import { describeSystemError, UsageError } from '../shared/errors.js';
import { exists, listIfExists, readIfExists, replaceFile } from '../shared/files.js';
import type { PricePerSegment } from '../message/cost.js';
import { OUTCOMES, type Outcome } from '../message/outcome.js';
import type { CampaignShape } from './identity.js';
import { ARCHIVED_JOURNAL, readJournal, type JournalState } from './journal.js';
import { lockIsHeld } from './lock.js';

export type CampaignStatus = 'running' | 'interrupted' | 'stopped' | 'finished';

/** What the state directory remembers of a campaign; small, rewritten atomically. */
export interface Manifest {
  v: 1;
  id: string;
  /** True when the ID is a --campaign name rather than derived from the content. */
  named: boolean;
  contentHash: string;
  inputs: { path: string; sha256: string; bytes: number }[];
  /** "simulator" or the endpoint the messages went to. */
  target: string;
  /** Absolute report paths, one per run that wrote one; the last is the newest. */
  reports: string[];
  createdAt: string;
  startedAt: string;
  finishedAt?: string;
  updatedAt: string;
  status: CampaignStatus;
  runs: number;
  /** Records in the campaign (every input record, whatever its outcome). */
  records: number;
  counts: Record<Outcome, number>;
  /** Why a stopped run stopped (gateway unusable). */
  reason?: string;
  /**
   * How the messages were made from the inputs (mapping, template, defaults, country): what
   * `sms-send retry` rebuilds them with.
   */
  shape?: CampaignShape;
  /**
   * The suppression lists the campaign was sent with, as absolute paths (the shape holds only
   * their hashes): a follow-up applies them, as they read then, to what it re-sends.
   */
  suppress?: string[];
  /** Set on a follow-up campaign (`sms-send retry`): the campaign it re-sends records of. */
  followUp?: FollowUpOf;
  /**
   * The rest of the summary of the run that last ended or stopped (the counts are above): what a
   * --resume of a finished campaign answers with, without reading its journal or its inputs.
   * Absent while a first run goes.
   */
  summary?: ManifestSummary;
  /**
   * Every run went to sms-send's simulator (the built-in one, or one whose answers said so):
   * nothing reached a phone, and a real send of the same content is not refused for it.
   */
  rehearsal?: true;
  /** The prices the newest run estimated its cost with: the campaign's page prices it by them. */
  pricing?: Pricing;
  /**
   * The host of the newest run, which wrote the newest report: a report path names a file on
   * that host (every pod of a fleet may name the same path).
   */
  host?: string;
  /**
   * The --limit the newest run was sent with: not part of the campaign's identity, so a --resume
   * with another limit (or none) goes on to the records it left out.
   */
  limit?: number;
  /**
   * Campaigns that sent the rest of this one's content (--skip-sent-by named it), written into
   * this manifest under their hold on it as they started: it is not continued (--resume, --once,
   * retry), since that would send their recipients the message again, wherever they are recorded
   * and whether or not they are still there.
   */
  supersededBy?: string[];
}

/** A price per segment and the currency it is in, as the settings gave them to a run. */
export interface Pricing {
  pricePerSegment: PricePerSegment;
  currency?: string;
}

export interface ManifestSummary {
  /** StatusCode → count, with the first description seen for it. */
  byStatusCode: Record<string, { count: number; description: string }>;
  /** Skipped rows whose recipient is on a suppression list. */
  suppressed: number;
}

/** What a follow-up campaign re-sends: records of campaign `of` with these outcomes. */
export interface FollowUpOf {
  of: string;
  /** Besides failed and rejected: "unknown", "undelivered". */
  include: string[];
  /**
   * The rows it re-sends and each one's original MessageId: an interrupted follow-up is resumed
   * with exactly these, whatever the original's report says by then.
   */
  rows?: [row: number, messageId: string][];
}

export const MANIFEST_VERSION = 1;

export interface CampaignPaths {
  dir: string;
  manifest: string;
  journal: string;
  lock: string;
  spool: string;
  /** Beside a complete spool kept for the campaign's next run (campaign/steps/kept-spool.ts). */
  spoolStamp: string;
}

/** A campaign's files on this host, in its folder there: its spool, and the stamp beside it. */
export function localFilesIn(dir: string): { dir: string; spool: string; spoolStamp: string } {
  return { dir, spool: join(dir, 'spool'), spoolStamp: join(dir, 'spool.json') };
}

export function campaignPaths(stateDir: string, id: string): CampaignPaths {
  const dir = join(stateDir, 'campaigns', id);
  return {
    manifest: join(dir, 'manifest.json'),
    journal: join(dir, 'journal.ndjson'),
    lock: join(dir, 'lock'),
    ...localFilesIn(dir),
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
  if (text === undefined) return undefined;
  let manifest: Manifest;
  try {
    manifest = JSON.parse(text) as Manifest;
  } catch {
    throw new UsageError(`${path} is not valid JSON; nothing was sent`, 'state-corrupt');
  }
  if (manifest.v !== MANIFEST_VERSION) {
    throw new UsageError(
      `${path} was written by another version of sms-send (manifest version ${String(manifest.v)}); nothing was sent`,
      'state-version',
    );
  }
  return manifest;
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
  const paths = campaignPaths(stateDir, id);
  const manifest = await readManifest(paths.manifest);
  if (!manifest || manifest.supersededBy?.includes(by)) return;
  const supersededBy = [...(manifest.supersededBy ?? []), by];
  await writeManifest(paths.manifest, { ...manifest, supersededBy });
}

/** A running campaign whose lock has no live owner was killed: it is interrupted. */
export async function effectiveStatus(
  manifest: Manifest,
  paths: CampaignPaths,
): Promise<CampaignStatus> {
  if (manifest.status !== 'running') return manifest.status;
  return (await lockIsHeld(paths.lock)) ? 'running' : 'interrupted';
}

export interface CampaignEntry {
  manifest: Manifest;
  status: CampaignStatus;
  /** Where its state is, as output names it: its folder, or its place in a database. */
  where: string;
  /** This host's folder of the campaign: its timeline, its spool. */
  localDir: string;
  /** The host that holds the campaign, or last held it (a store shared by hosts says). */
  host?: string;
  /**
   * The run that holds it ran on this host and its process is gone (killed): its hold lasts
   * until its lease runs out, at this time (ISO 8601), and keeps other runs out until then.
   */
  goneUntil?: string;
  /**
   * Rows settled by outcome: the summary the manifest holds from when a run last ended or
   * stopped. For a campaign running, or killed mid-run, campaignDetail counts its journal.
   */
  counts: Record<Outcome, number>;
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
  return { manifest, status, where: paths.dir, localDir: paths.dir, counts: manifest.counts };
}

/** One campaign in full, as `campaigns show` tells it. */
export interface CampaignDetail extends CampaignEntry {
  /** Whether the counts are the journal's (a campaign running or killed mid-run). */
  countedFromJournal: boolean;
  /** The journal they were counted from. */
  journal?: JournalState;
  /** Journals --force runs set aside (`journal-<time>.ndjson`): how many, and their bytes. */
  setAside: { journals: number; bytes: number };
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
  if (entry.status !== 'running' && entry.status !== 'interrupted') {
    return { ...entry, countedFromJournal: false, setAside };
  }
  const journal = await readJournal(paths.journal).catch(() => undefined);
  if (!journal) return { ...entry, countedFromJournal: false, setAside };
  return { ...entry, counts: outcomeCounts(journal), countedFromJournal: true, journal, setAside };
}

/** The rows a journal settled, by outcome. */
export function outcomeCounts(journal: JournalState): Record<Outcome, number> {
  const counts = Object.fromEntries(OUTCOMES.map((o) => [o, 0])) as Record<Outcome, number>;
  for (const outcome of journal.results.outcomes()) counts[outcome]++;
  return counts;
}

/** Finds a campaign by its ID or an unambiguous prefix of it. */
export async function findCampaign(stateDir: string, id: string): Promise<CampaignEntry> {
  return pickCampaign(await listCampaigns(stateDir), id, stateDir);
}

/** The campaign of `all` an ID or an unambiguous prefix of it names (exit 2 when none or several). */
export function pickCampaign(
  all: readonly CampaignEntry[],
  id: string,
  where: string,
): CampaignEntry {
  const exact = all.find((e) => e.manifest.id === id);
  if (exact) return exact;
  const matches = all.filter((e) => e.manifest.id.startsWith(id));
  if (matches.length === 1) return matches[0]!;
  if (matches.length > 1) {
    throw new UsageError(
      `campaign "${id}" is ambiguous: ${matches.map((e) => e.manifest.id).join(', ')}`,
      'campaign-ambiguous',
    );
  }
  throw new UsageError(`no campaign "${id}" in ${where}`, 'campaign-unknown');
}

/**
 * Removes the state of finished campaigns that finished before `before`, and of folders a run left
 * without a manifest (it sent nothing) whose lock is not held. Unfinished campaigns are kept: their
 * journal is what lets --resume finish them without sending twice.
 */
export async function pruneCampaigns(stateDir: string, before: Date): Promise<string[]> {
  const names = await listIfExists(join(stateDir, 'campaigns'));
  const removed: string[] = [];
  for (const name of names) {
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
      await rm(paths.dir, { recursive: true, force: true });
      removed.push(name);
    }
  }
  return removed;
}
