// Before anything is sent, a campaign's state decides: start, resume, or refuse (finished, unfinished, running).
import { moveRehearsalReport, setAsideRehearsal } from './rehearsal.js';
import { rm, rmdir } from 'node:fs/promises';
import { leadingTo, LockedError, UsageError } from '../shared/errors.js';
import { groupDigits, plural } from '../shared/count.js';
import { exists, listIfExists } from '../shared/files.js';
import { acquireLock } from './lock.js';
import { makeFolders } from '../shared/disk.js';
import type { CampaignIdentity } from './identity.js';
import { ARCHIVED_JOURNAL, emptyJournalState, readJournal, type JournalState } from './journal.js';
import {
  campaignPaths,
  ensureStateDir,
  listCampaigns,
  readManifest,
  writeManifest,
  type CampaignPaths,
  type CampaignStatus,
  type Manifest,
} from './state.js';

export interface ClaimOptions {
  stateDir: string;
  identity: CampaignIdentity;
  force: boolean;
  resume: boolean;
  /** The inputs' hashes, to name a campaign from the same files when there is nothing to resume. */
  inputs?: readonly { sha256: string }[];
  /** The report this run would write, when it exists already (and is not to be replaced). */
  existingReport?: string;
  /**
   * The report this run writes, when a rehearsal wrote it and the campaign's state lets this run
   * in: moved out of the way once the run starts, never before.
   */
  rehearsalReport?: string;
}

/** A campaign this run holds the lock of, with what earlier runs left. */
export interface Claim {
  paths: CampaignPaths;
  /** The manifest of earlier runs, when one sent something. */
  previous?: Manifest;
  /** The journal to continue from, with --resume (of a finished campaign: once loadJournal read it). */
  journal?: JournalState;
  /**
   * --resume of a finished campaign: its journal is not read yet, since its manifest may answer
   * (nothing left to send); loadJournal() reads it when it cannot.
   */
  finished: boolean;
  loadJournal(): Promise<JournalState>;
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
    },
  ): Promise<void>;
  /** Releases the lock; a run that never started leaves no folder behind to block the next. */
  release(): Promise<void>;
}

/**
 * An unfinished campaign (`status` other than finished) keeps its complete, stamped spool for its
 * next run; anything else goes (docs/campaign-state.md#the-kept-spool).
 */
async function releaseSpool(paths: CampaignPaths, status: CampaignStatus | undefined) {
  const kept = status !== undefined && status !== 'finished' && (await exists(paths.spoolStamp));
  if (kept) return;
  await rm(paths.spoolStamp, { force: true });
  await rm(paths.spool, { force: true });
}

/** The campaign's lock (exit 4 while another run holds it, saying how to see how it stands). */
async function lockCampaign(paths: CampaignPaths, options: ClaimOptions) {
  const { identity } = options;
  return acquireLock(paths.lock, `sending campaign ${identity.id}`).catch(
    async (error: unknown) => {
      // Once the run that holds it has started sending, how it stands can be looked at meanwhile;
      // before that there is nothing to show but the wait.
      const started = await readManifest(paths.manifest).catch(() => undefined);
      if (error instanceof LockedError && started) {
        leadingTo(error, {
          say: 'See how it stands',
          args: ['campaigns', '--state-dir', options.stateDir, 'show', identity.id],
        });
      }
      throw error;
    },
  );
}

export async function claimCampaign(options: ClaimOptions): Promise<Claim> {
  const { identity } = options;
  await ensureStateDir(options.stateDir);
  const paths = campaignPaths(options.stateDir, identity.id);
  // A folder left by a run killed before its first batch: resuming it is starting it.
  const existed = await exists(paths.dir);
  // Its name synced in campaigns/: a batch is sent only once the journal that records it is findable.
  await makeFolders(paths.dir);
  const lock = await lockCampaign(paths, options);
  let started = false;
  let current: Manifest | undefined;
  const claim: Claim = {
    paths,
    finished: false,
    notes: [],
    async loadJournal() {
      claim.journal ??= (await readJournal(paths.journal)) ?? emptyJournalState();
      return claim.journal;
    },
    async start(fields) {
      const { report, rehearsal, ...rest } = fields;
      await setAsideRehearsals(claim, options);
      current = {
        ...(previous?.pricing ? { pricing: previous.pricing } : {}),
        ...rest,
        ...(rehearsal && rehearsedSoFar(previous) ? { rehearsal } : {}),
        createdAt: previous?.createdAt ?? rest.startedAt,
        runs: (previous?.runs ?? 0) + 1,
        reports: [...(previous?.reports ?? []).filter((r) => r !== report), report],
      };
      await writeManifest(paths.manifest, current);
      started = true;
      return current;
    },
    async finish({ rehearsal, ...update }) {
      if (!current) return;
      const now = new Date().toISOString();
      current = {
        ...current,
        ...update,
        updatedAt: now,
        ...(update.status === 'finished' ? { finishedAt: now } : {}),
      };
      if (update.reason === undefined) delete current.reason;
      // One run that reached a real gateway makes the campaign real for good.
      if (rehearsal && rehearsedSoFar(previous)) current.rehearsal = true;
      else delete current.rehearsal;
      await writeManifest(paths.manifest, current);
    },
    async release() {
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

  let previous: Manifest | undefined;
  try {
    const decision = await decide(paths, options, existed);
    // A finished rehearsal stays as it is until this run starts (Claim.start).
    if (decision.setAside) claim.rehearsal = decision.manifest;
    else if (decision.fresh && !decision.keepManifest) {
      // A run killed before its first batch (or stopped by validation): nothing to keep. With
      // --force the earlier journal stays until the send pass archives it, so a forced run that
      // sends nothing (declined, refused, killed) leaves the campaign as it was.
      await rm(paths.journal, { force: true });
      if (decision.manifest) await rm(paths.manifest, { force: true });
    }
    previous = decision.keepManifest ? decision.manifest : undefined;
    claim.previous = previous;
    claim.journal = decision.resumeFrom;
    claim.finished = decision.finished === true;
    return claim;
  } catch (error) {
    await lock.release();
    // A refused first claim leaves no folder, or the next identical run would find it and take
    // it for a run killed before its first batch.
    if (!existed) await rmdir(paths.dir).catch(() => undefined);
    throw error;
  }
}

/**
 * What a rehearsal left in the way of a run that starts: the campaign's own finished rehearsal,
 * set aside under a name of its own, and a report a rehearsal wrote where this run writes its
 * own, renamed. Done as the run starts, never before; said in the claim's notes.
 */
async function setAsideRehearsals(claim: Claim, options: ClaimOptions): Promise<void> {
  const rehearsal = claim.rehearsal;
  if (rehearsal) {
    const keptAs = await setAsideRehearsal(options.stateDir, claim.paths, rehearsal);
    claim.rehearsal = undefined;
    claim.notes.push(
      `campaign ${rehearsal.id} was a rehearsal (sent to a simulator only): kept as ${keptAs}; ` +
        'this run starts it afresh',
    );
  }
  if (options.rehearsalReport === undefined) return;
  const moved = await moveRehearsalReport(options.stateDir, options.rehearsalReport);
  if (moved !== undefined) {
    claim.notes.push(`the report ${options.rehearsalReport} was a rehearsal's: it is now ${moved}`);
  }
}

interface Decision {
  manifest?: Manifest;
  /**
   * The campaign's state is a finished rehearsal's: moved to a folder of its own when the fresh
   * run starts.
   */
  setAside?: boolean;
  /** Start without the earlier journal. */
  fresh: boolean;
  /** The earlier manifest stays the campaign's (its reports, creation time, runs). */
  keepManifest: boolean;
  /** The journal --resume continues from. */
  resumeFrom?: JournalState;
  /** --resume of a finished campaign, whose journal is read only when needed. */
  finished?: boolean;
}

/**
 * What the campaign's state allows, or the refusal (exit 2) that says why not. Reads only; the
 * caller removes what a fresh start leaves behind.
 */
async function decide(
  paths: CampaignPaths,
  options: ClaimOptions,
  existed: boolean,
): Promise<Decision> {
  const { identity } = options;
  const manifest = await readManifest(paths.manifest);
  // A finished campaign's manifest has its counts: its refusal, a --force and a --resume with
  // nothing left need no journal (a million records are megabytes of it).
  const finished = manifest?.status === 'finished';
  const journal = finished ? undefined : await readJournal(paths.journal);
  // What a --force run archived proves earlier sends, even while its own journal is still empty.
  const sentBefore =
    (manifest && finished ? reachedGateway(manifest) : journal?.sent === true) ||
    (await hasArchivedJournals(paths));
  if (!manifest || !sentBefore) {
    // --resume of a campaign that never ran here is no resume: with other settings or another
    // --campaign name it would be a new campaign, sending everything again.
    if (options.resume && !existed) throw await nothingToResume(options);
    return { manifest, fresh: true, keepManifest: false };
  }
  // A finished rehearsal (every run went to a simulator) makes nothing sent: a new run starts
  // afresh, and the rehearsal is kept under a name of its own. A --resume goes on with it. An
  // unfinished one is refused like any campaign: what a rehearsal rehearses is that guard.
  if (manifest.rehearsal && finished && !options.resume)
    return { manifest, fresh: true, keepManifest: false, setAside: true };
  const status: CampaignStatus = manifest.status === 'running' ? 'interrupted' : manifest.status;
  if (manifest.contentHash !== identity.contentHash && !options.force) {
    throw new UsageError(
      `campaign ${identity.id} was ${verb(status)} on ${day(manifest)} from other inputs or ` +
        'settings, so its records cannot be matched; nothing was sent. ' +
        'Give this content its own --campaign name, or --force to send it under this name anyway.',
      'input-changed',
    );
  }
  if (options.force) return { manifest, fresh: true, keepManifest: true };
  if (options.resume && finished) return { manifest, fresh: false, keepManifest: true, finished };
  if (options.resume) {
    return {
      manifest,
      fresh: false,
      keepManifest: true,
      resumeFrom: journal ?? emptyJournalState(),
    };
  }
  throw refusal(manifest, status, journal);
}

/**
 * The campaign's state as a dry run sees it: what a real run would be refused with, and the
 * journal a --resume would continue, without taking the lock or changing anything.
 */
export async function inspectCampaign(options: ClaimOptions): Promise<{
  refusal?: UsageError;
  journal?: JournalState;
  /** The campaign's folder and manifest, when a --resume would continue it. */
  paths?: CampaignPaths;
  previous?: Manifest;
}> {
  try {
    const paths = campaignPaths(options.stateDir, options.identity.id);
    const decision = await decide(paths, options, await exists(paths.dir));
    const previous = decision.keepManifest ? decision.manifest : undefined;
    const kept = previous ? { paths, previous } : {};
    if (!decision.finished) return { journal: decision.resumeFrom, ...kept };
    return { journal: (await readJournal(paths.journal)) ?? emptyJournalState(), ...kept };
  } catch (error) {
    if (error instanceof UsageError) return { refusal: error };
    throw error;
  }
}

async function nothingToResume(options: ClaimOptions): Promise<UsageError> {
  const { identity } = options;
  const same = (options.inputs ?? []).map((i) => i.sha256).join(',');
  const kin = same
    ? (await listCampaigns(options.stateDir)).find(
        (e) => e.manifest.inputs.map((i) => i.sha256).join(',') === same,
      )
    : undefined;
  const hint = kin
    ? ` Campaign ${kin.manifest.id} (${kin.status}, started ${kin.manifest.startedAt.slice(0, 10)}) ` +
      'was sent from the same input files with other settings (sender, template, mapping, ' +
      'message defaults, --country, --gsm-normalize, --simulate or --campaign name): to finish ' +
      'it, run with ' +
      `exactly the settings it was started with${kin.manifest.named ? ` (--campaign ${kin.manifest.id})` : ''}.`
    : options.existingReport === undefined
      ? ' Without --resume this content is sent as a new campaign.'
      : ` Without --resume, and with --force to replace its report ${options.existingReport}, ` +
        'this content is sent as a new campaign.';
  const error = new UsageError(
    `nothing to resume: no run of campaign ${identity.id} is recorded in ${options.stateDir}. ` +
      `Nothing was sent.${hint}`,
    'nothing-to-resume',
  );
  // Other settings made the campaign from the same files: only the user knows which they were.
  if (kin) return error;
  return leadingTo(error, {
    say: 'Send it as a new campaign',
    drop: ['--resume'],
    add: options.existingReport === undefined ? [] : ['--force'],
  });
}

/** Whether every earlier run of the campaign (none, for a first run) was a rehearsal. */
function rehearsedSoFar(previous: Manifest | undefined): boolean {
  return previous === undefined || previous.rehearsal === true;
}

async function hasArchivedJournals(paths: CampaignPaths): Promise<boolean> {
  return (await listIfExists(paths.dir)).some((name) => ARCHIVED_JOURNAL.test(name));
}

/** Whether a finished run's counts hold a result the journal records (as its `sent` says). */
function reachedGateway(manifest: Manifest): boolean {
  const { accepted, rejected, failed, unknown } = manifest.counts;
  return accepted + rejected + failed + unknown > 0;
}

function refusal(
  manifest: Manifest,
  status: CampaignStatus,
  journal: JournalState | undefined,
): UsageError {
  const report = manifest.reports.at(-1);
  if (status === 'finished') {
    const failed = manifest.counts.failed;
    const error = new UsageError(
      `campaign ${manifest.id} was already sent on ${day(manifest)}: ` +
        `${countsText(manifest.counts)}; report ${report ?? '(none)'}. Nothing was sent. ` +
        `--force sends it all again${twice(manifest.counts.accepted)}` +
        (failed > 0
          ? `; --resume sends only its ${groupDigits(failed)} failed records again.`
          : '.'),
      'already-sent',
    );
    // Sending it all again is for the user to choose; what it sent, or its failed records, are
    // what moves them on.
    return leadingTo(
      error,
      failed > 0
        ? { say: 'Send only its failed records again', add: ['--resume'] }
        : {
            say: 'See what it sent',
            args: report === undefined ? ['campaigns', 'show', manifest.id] : ['report', report],
          },
    );
  }
  // The journal knows what an interrupted run settled; its manifest was last written at the start.
  const settled = journalCounts(journal ?? emptyJournalState());
  const why = status === 'stopped' && manifest.reason ? ` (${manifest.reason})` : '';
  // A rehearsal's messages went to a simulator: starting it afresh sends nothing twice to a phone.
  const what = manifest.rehearsal ? 'rehearsal' : 'campaign';
  const force = manifest.rehearsal
    ? 'or --force to start the rehearsal afresh (its messages went to a simulator only)'
    : `or --force to send it all again${twice(settled.accepted ?? 0)}`;
  const error = new UsageError(
    `${what} ${manifest.id} was ${status}${why} on ${day(manifest)}: ` +
      `${countsText(settled)} of ${groupDigits(manifest.records)} records; report ${report ?? '(none)'}. ` +
      `Nothing was sent. Finish it with --resume (nothing settled is sent again), ${force}.`,
    'unfinished',
  );
  return leadingTo(error, { say: 'Finish it', add: ['--resume'], drop: ['--force'] });
}

/** `, and its 3,000 accepted messages would go twice`: what --force costs, said where it is offered. */
function twice(accepted: number): string {
  return accepted > 0 ? `, and its ${plural(accepted, 'accepted message')} would go twice` : '';
}

/** Outcomes the journal recorded, and the rows in flight by what is known of them. */
function journalCounts(journal: JournalState): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const outcome of journal.results.outcomes()) counts[outcome] = (counts[outcome] ?? 0) + 1;
  const unposted = journal.unposted.size;
  const sent = journal.inFlight.size - unposted;
  if (sent > 0) counts['sent without an answer'] = sent;
  if (unposted > 0) counts['recorded, not known to have left'] = unposted;
  return counts;
}

function verb(status: CampaignStatus): string {
  return status === 'finished' ? 'sent' : status;
}

function day(manifest: Manifest): string {
  return (manifest.finishedAt ?? manifest.updatedAt).slice(0, 10);
}

/** "3,000 accepted, 100 failed": counts without the zeros. */
export function countsText(counts: Record<string, number>): string {
  const parts = Object.entries(counts)
    .filter(([, n]) => n > 0)
    .map(([outcome, n]) => `${groupDigits(n)} ${outcome}`);
  return parts.length ? parts.join(', ') : 'nothing settled';
}
