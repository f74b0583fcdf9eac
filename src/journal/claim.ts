// A campaign claimed in the state directory: its lock taken, its state read once and decided
// (decide.ts), and what the run then changes of it: the manifest as it starts and ends, its
// journal, a rehearsal set aside. What a run holds of a campaign, whatever the store.
import { rm, rmdir } from 'node:fs/promises';
import { leadingTo, LockedError, UsageError } from '../shared/errors.js';
import { exists, listIfExists } from '../shared/files.js';
import { makeFolders } from '../shared/disk.js';
import {
  decideClaim,
  nothingToResume,
  rehearsedSoFar,
  type ClaimOptions,
  type Decision,
  type StoredState,
} from './decide.js';
import {
  ARCHIVED_JOURNAL,
  archiveJournal,
  emptyJournalState,
  JournalWriter,
  readJournal,
  type JournalSink,
  type JournalState,
} from './journal.js';
import { acquireLock } from './lock.js';
import { moveRehearsalReport, setAsideRehearsal } from './rehearsal.js';
import {
  campaignPaths,
  ensureStateDir,
  listCampaigns,
  readManifest,
  writeManifest,
  type CampaignPaths,
  type CampaignEntry,
  type CampaignStatus,
  type Manifest,
} from './state.js';

export type { ClaimOptions } from './decide.js';

/** A campaign's files on this host: its spool, kept between runs when complete, and its folder. */
export interface LocalFiles {
  dir: string;
  spool: string;
  /** Beside a complete spool kept for the campaign's next run. */
  spoolStamp: string;
}

/** A campaign this run holds, with what earlier runs left. */
export interface Claim {
  /** This host's files of the campaign. */
  local: LocalFiles;
  /** The manifest of earlier runs, when one sent something. */
  previous?: Manifest;
  /** The journal to continue from, with --resume (of a finished campaign: once loadJournal read it). */
  journal?: JournalState;
  /**
   * --resume of a finished campaign: its journal is not read yet, since its manifest may answer
   * (nothing left to send); loadJournal() reads it when it cannot.
   */
  finished: boolean;
  /** --once of a finished campaign: nothing to do, nothing sent. */
  done: boolean;
  loadJournal(): Promise<JournalState>;
  /** The journal as it stands now, read again: what a resume of this run would find. */
  readJournal(): Promise<JournalState>;
  /** A --force run's start (`at`): the earlier journal set aside, kept, never deleted. */
  archiveJournal(at: number): Promise<void>;
  /** The journal this run records in. */
  openJournal(): Promise<JournalSink>;
  /**
   * A finished rehearsal of this content, set aside under a name of its own when this run starts
   * (and only then: a run declined or refused before it starts leaves it as it was).
   */
  rehearsal?: Manifest;
  /** What starting the run did to earlier state that is worth saying (a rehearsal set aside). */
  readonly notes: string[];
  /**
   * Marks the campaign running: from here on its state is kept, whatever happens. A run given no
   * prices keeps those an earlier run of the campaign was priced with. A finished rehearsal of
   * the campaign, and the report it wrote where this run writes its own, are set aside first.
   */
  start(
    manifest: Omit<Manifest, 'createdAt' | 'runs' | 'reports'> & { report: string },
  ): Promise<Manifest>;
  /** Records how the run ended. */
  finish(
    update: Pick<Manifest, 'status' | 'counts' | 'records' | 'summary'> & {
      reason?: string;
      /** This run went to a simulator: the campaign stays a rehearsal if every run did. */
      rehearsal?: boolean;
      /** When it ended (ISO 8601). */
      at: string;
    },
  ): Promise<void>;
  /** Releases the claim; a run that never started leaves no state behind to block the next. */
  release(): Promise<void>;
}

/** A dry run's look: what a real run would be refused with, and what a --resume would continue. */
export interface Inspected {
  refusal?: UsageError;
  journal?: JournalState;
  /** The campaign's files and manifest, when a --resume would continue it. */
  local?: LocalFiles;
  previous?: Manifest;
}

/** The campaign's state in the state directory, read once. */
async function readState(paths: CampaignPaths): Promise<StoredState> {
  const existed = await exists(paths.dir);
  const manifest = await readManifest(paths.manifest);
  // A finished campaign's manifest has its counts: its refusal, a --force and a --resume with
  // nothing left need no journal (it grows with every record).
  const journal = manifest?.status === 'finished' ? undefined : await readJournal(paths.journal);
  const archived = (await listIfExists(paths.dir)).some((name) => ARCHIVED_JOURNAL.test(name));
  return { existed, manifest, journal, archived };
}

/** The campaigns a decision may name: where they are, and their list. */
export interface Kin {
  where: string;
  list(): Promise<CampaignEntry[]>;
}

/** A store's new claim, given what the state decided: what it keeps, resumes or sets aside. */
export function withDecision(claim: Claim, decision: Decision): Claim {
  claim.previous = decision.keepManifest ? decision.manifest : undefined;
  if (decision.setAside) claim.rehearsal = decision.manifest;
  claim.journal = decision.resumeFrom;
  claim.finished = decision.finished === true;
  claim.done = decision.done === true;
  return claim;
}

/** The state's decision, with the refusal of a --resume that finds nothing worded for this store. */
export async function decided(kin: Kin, state: StoredState, options: ClaimOptions) {
  const decision = decideClaim(state, options);
  if (!decision.nothingToResume) return decision;
  const same = (options.inputs ?? []).map((i) => i.sha256).join(',');
  const sameInputs = same
    ? (await kin.list()).find((e) => e.manifest.inputs.map((i) => i.sha256).join(',') === same)
    : undefined;
  throw nothingToResume(options, kin.where, sameInputs?.manifest, sameInputs?.status);
}

function folderKin(stateDir: string): Kin {
  return { where: stateDir, list: () => listCampaigns(stateDir) };
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

export async function claimCampaign(stateDir: string, options: ClaimOptions): Promise<Claim> {
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
    return withDecision(folderClaim(stateDir, paths, options, lock), decision);
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
  stateDir: string,
  paths: CampaignPaths,
  options: ClaimOptions,
  lock: { release(): Promise<void> },
): Claim {
  let started = false;
  let current: Manifest | undefined;
  const claim: Claim = {
    local: localFiles(paths),
    finished: false,
    done: false,
    notes: [],
    async loadJournal() {
      claim.journal ??= (await readJournal(paths.journal)) ?? emptyJournalState();
      return claim.journal;
    },
    async readJournal() {
      return (await readJournal(paths.journal)) ?? emptyJournalState();
    },
    archiveJournal: (at) => archiveJournal(paths.journal, at),
    openJournal: () => JournalWriter.open(paths.journal),
    async start(fields) {
      await setAsideRehearsals(claim, options, {
        campaign: (rehearsal) =>
          setAsideRehearsal(stateDir, campaignPaths(stateDir, rehearsal.id), rehearsal),
        report: (path) => moveRehearsalReport(stateDir, path),
      });
      current = startedManifest(claim.previous, fields);
      await writeManifest(paths.manifest, current);
      started = true;
      return current;
    },
    async finish(update) {
      if (!current) return;
      current = finishedManifest(current, update, claim.previous);
      await writeManifest(paths.manifest, current);
    },
    async release() {
      const previous = claim.previous;
      // Nothing was handed to the gateway: no state may block the next run. A rehearsal this run
      // would have set aside is still the campaign's state, and stays.
      const unsent = !started && !previous && !claim.rehearsal;
      if (unsent) {
        await rm(paths.journal, { force: true });
        await rm(paths.manifest, { force: true });
      }
      await releaseSpool(paths, started || previous ? (current ?? previous)?.status : undefined);
      await lock.release();
      if (unsent) await rmdir(paths.dir).catch(() => undefined);
    },
  };
  return claim;
}

export type StartFields = Parameters<Claim['start']>[0];
export type FinishFields = Parameters<Claim['finish']>[0];

/**
 * The manifest a run starts with: the earlier runs' creation time, run count and reports kept (its
 * own report last, once), and their prices when it was given none.
 */
export function startedManifest(previous: Manifest | undefined, fields: StartFields): Manifest {
  const { report, rehearsal, ...rest } = fields;
  return {
    ...(previous?.pricing ? { pricing: previous.pricing } : {}),
    ...rest,
    ...(rehearsal && rehearsedSoFar(previous) ? { rehearsal } : {}),
    createdAt: previous?.createdAt ?? rest.startedAt,
    runs: (previous?.runs ?? 0) + 1,
    reports: [...(previous?.reports ?? []).filter((r) => r !== report), report],
  };
}

/** The manifest as the run ends: its status, counts and reason; a rehearsal only if all were. */
export function finishedManifest(
  current: Manifest,
  { rehearsal, at, ...update }: FinishFields,
  previous: Manifest | undefined,
): Manifest {
  const next: Manifest = {
    ...current,
    ...update,
    updatedAt: at,
    ...(update.status === 'finished' ? { finishedAt: at } : {}),
  };
  if (update.reason === undefined) delete next.reason;
  // One run that reached a real gateway makes the campaign real for good.
  if (rehearsal && rehearsedSoFar(previous)) next.rehearsal = true;
  else delete next.rehearsal;
  return next;
}

export function localFiles(paths: Pick<CampaignPaths, 'dir' | 'spool' | 'spoolStamp'>): LocalFiles {
  return { dir: paths.dir, spool: paths.spool, spoolStamp: paths.spoolStamp };
}

/**
 * An unfinished campaign (`status` other than finished) keeps its complete, stamped spool for its
 * next run; anything else goes (docs/campaign-state.md#the-kept-spool).
 */
export async function releaseSpool(paths: LocalFiles, status: CampaignStatus | undefined) {
  const kept = status !== undefined && status !== 'finished' && (await exists(paths.spoolStamp));
  if (kept) return;
  await rm(paths.spoolStamp, { force: true });
  await rm(paths.spool, { force: true });
}

/** How a store sets a rehearsal's leftovers aside: its campaign, and a report of its. */
export interface RehearsalAside {
  /** Keeps the finished rehearsal under a name of its own, which it returns. */
  campaign(rehearsal: Manifest): Promise<string>;
  /** Renames a rehearsal's report at `path`; undefined when there was none to move. */
  report(path: string): Promise<string | undefined>;
}

/**
 * What a rehearsal left in the way of a run that starts: the campaign's own finished rehearsal,
 * set aside under a name of its own, and a report a rehearsal wrote where this run writes its
 * own, renamed. Done as the run starts, never before; said in the claim's notes.
 */
export async function setAsideRehearsals(
  claim: Claim,
  options: ClaimOptions,
  aside: RehearsalAside,
): Promise<void> {
  const rehearsal = claim.rehearsal;
  if (rehearsal) {
    const keptAs = await aside.campaign(rehearsal);
    claim.rehearsal = undefined;
    claim.notes.push(
      `campaign ${rehearsal.id} was a rehearsal (sent to a simulator only): kept as ${keptAs}; ` +
        'this run starts it afresh',
    );
  }
  if (options.rehearsalReport === undefined) return;
  const moved = await aside.report(options.rehearsalReport);
  if (moved !== undefined) {
    claim.notes.push(`the report ${options.rehearsalReport} was a rehearsal's: it is now ${moved}`);
  }
}

/**
 * The campaign's state as a dry run sees it: what a real run would be refused with, and the
 * journal a --resume would continue, without taking the lock or changing anything.
 */
export async function inspectCampaign(stateDir: string, options: ClaimOptions): Promise<Inspected> {
  try {
    const paths = campaignPaths(stateDir, options.identity.id);
    const decision = await decided(folderKin(stateDir), await readState(paths), options);
    const previous = decision.keepManifest ? decision.manifest : undefined;
    const kept = previous ? { local: localFiles(paths), previous } : {};
    if (!decision.finished) return { journal: decision.resumeFrom, ...kept };
    return { journal: (await readJournal(paths.journal)) ?? emptyJournalState(), ...kept };
  } catch (error) {
    if (error instanceof UsageError) return { refusal: error };
    throw error;
  }
}
