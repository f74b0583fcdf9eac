// A campaign claimed in the state directory: its lock taken, its state read once and decided
// (claim-rules.ts), and what the run then changes of it: the manifest as it starts and ends, its
// journal, a rehearsal set aside.
import { rm, rmdir } from 'node:fs/promises';
import { leadingTo, LockedError, UsageError } from '../../shared/errors.js';
import { exists, listIfExists } from '../../shared/files.js';
import { makeFolders } from '../../shared/disk.js';
import type { HostCache } from '../cache.js';
import { decided, foundOf, setAsideRehearsals, type Kin } from '../claim-rules.js';
import type { ClaimOptions, StoredState } from '../decide.js';
import { acquireLock, type Lock } from '../lock.js';
import { finishedManifest, startedManifest, type Manifest } from '../manifest.js';
import { emptyJournalState, readJournalFile } from '../reading.js';
import type { Claim, Inspected } from '../store.js';
import {
  campaignPaths,
  ensureStateDir,
  listCampaigns,
  readManifest,
  writeManifest,
  type CampaignPaths,
} from './campaigns.js';
import { ARCHIVED_JOURNAL, archiveJournal, JournalWriter } from './journal.js';
import { moveRehearsalReport, setAsideRehearsal } from './rehearsal.js';
import { keepRun } from './runs.js';

/** The state directory a claim is made in, and this host's cache beside it. */
export interface FolderPlace {
  stateDir: string;
  cache: HostCache;
}

/** The campaign's state in the state directory, read once. */
async function readState(paths: CampaignPaths): Promise<StoredState> {
  const existed = await exists(paths.dir);
  const manifest = await readManifest(paths.manifest);
  // A finished campaign's manifest has its counts: its refusal, a --force and a --resume with
  // nothing left need no journal (it grows with every record).
  const journal =
    manifest?.status === 'finished' ? undefined : await readJournalFile(paths.journal);
  const archived = (await listIfExists(paths.dir)).some((name) => ARCHIVED_JOURNAL.test(name));
  return { existed, manifest, journal, archived };
}

function folderKin(stateDir: string): Kin {
  return { where: stateDir, campaigns: () => listCampaigns(stateDir) };
}

/** The campaign's lock (exit 4 while another run holds it, saying how to see how it stands). */
async function lockCampaign(stateDir: string, paths: CampaignPaths, options: ClaimOptions) {
  const { identity } = options;
  return acquireLock(paths.lock, `sending campaign ${identity.id}`).catch(
    async (error: unknown) => {
      // Once the run that holds it has started sending, how it stands can be looked at meanwhile;
      // before that there is nothing to show but the wait.
      const started = await readManifest(paths.manifest).catch(() => undefined);
      if (error instanceof LockedError && started) {
        leadingTo(error, {
          say: 'See how it stands',
          args: ['campaigns', '--state-dir', stateDir, 'show', identity.id],
        });
      }
      throw error;
    },
  );
}

export async function claimCampaign(place: FolderPlace, options: ClaimOptions): Promise<Claim> {
  const { stateDir } = place;
  await ensureStateDir(stateDir);
  const paths = campaignPaths(stateDir, options.identity.id);
  // A folder left by a run killed before its first batch: resuming it is starting it.
  const existed = await exists(paths.dir);
  // Its name synced in campaigns/: a batch is sent only once the journal that records it is findable.
  await makeFolders(paths.dir);
  const lock = await lockCampaign(stateDir, paths, options);
  try {
    const decision = await decided(
      folderKin(stateDir),
      { ...(await readState(paths)), existed },
      options,
    );
    // A finished rehearsal stays as it is until this run starts (Claim.start).
    if (!decision.setAside && decision.fresh && !decision.keepManifest) {
      // A run killed before its first batch (or stopped by validation): nothing to keep. With
      // --force the earlier journal stays until the send pass archives it, so a forced run that
      // sends nothing (declined, refused, killed) leaves the campaign as it was.
      await rm(paths.journal, { force: true });
      if (decision.manifest) await rm(paths.manifest, { force: true });
    }
    return folderClaim(place, paths, options, lock, foundOf(decision));
  } catch (error) {
    await lock.release();
    // A refused first claim leaves no folder, or the next identical run would find it and take
    // it for a run killed before its first batch.
    if (!existed) await rmdir(paths.dir).catch(() => undefined);
    throw error;
  }
}

/** The claim's part of the campaign's folder: its manifest, its journal, its release. */
function folderClaim(
  { stateDir, cache }: FolderPlace,
  paths: CampaignPaths,
  options: ClaimOptions,
  lock: Lock,
  found: Claim['found'],
): Claim {
  const previous = found.previous;
  let rehearsal = found.rehearsal;
  let current: Manifest | undefined;
  return {
    found,
    async readJournal() {
      return (await readJournalFile(paths.journal)) ?? emptyJournalState();
    },
    async openJournal(freshAt) {
      if (freshAt !== undefined) await archiveJournal(paths.journal, freshAt);
      return JournalWriter.open(paths.journal);
    },
    async start(fields) {
      const notes = await setAsideRehearsals(rehearsal, options.rehearsalReport, {
        campaign: (manifest) => setAsideRehearsal(stateDir, cache, manifest),
        report: (path) => moveRehearsalReport(stateDir, path),
      });
      rehearsal = undefined;
      const started = startedManifest(previous, fields);
      await writeManifest(paths.manifest, started);
      current = started;
      return notes;
    },
    async finish(update) {
      if (!current) return;
      current = finishedManifest(current, update, previous);
      await writeManifest(paths.manifest, current);
    },
    keepRun(record) {
      return keepRun(paths.runs, record);
    },
    async release() {
      // Nothing was handed to the gateway: no state may block the next run. A rehearsal this run
      // would have set aside is still the campaign's state, and stays.
      const unsent = !current && !previous && !rehearsal;
      if (unsent) {
        await rm(paths.journal, { force: true });
        await rm(paths.manifest, { force: true });
      }
      await cache.releaseSpool(options.identity.id, (current ?? previous)?.status);
      await lock.release();
      if (unsent) await rmdir(paths.dir).catch(() => undefined);
    },
  };
}

/**
 * The campaign's state as a dry run sees it: what a real run would be refused with, and the
 * journal a --resume would continue, without taking the lock or changing anything.
 */
export async function inspectCampaign(stateDir: string, options: ClaimOptions): Promise<Inspected> {
  try {
    const paths = campaignPaths(stateDir, options.identity.id);
    const decision = await decided(folderKin(stateDir), await readState(paths), options);
    const found = foundOf(decision);
    if (!found.finished) return { found };
    return {
      found: { ...found, journal: (await readJournalFile(paths.journal)) ?? emptyJournalState() },
    };
  } catch (error) {
    if (error instanceof UsageError) return { refusal: error, found: NOTHING_FOUND };
    throw error;
  }
}

const NOTHING_FOUND = { finished: false, done: false } as const;
