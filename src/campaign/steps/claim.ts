// Step two of a campaign: its state decides whether it may be sent, and what a real run holds while
// it runs: the campaign's state (claimed), the report's lock, the original's lock for a follow-up,
// the spool. A dry run looks at the state without taking anything.
import { readRelatives, relativeNotes } from './relatives.js';
import { readSkipped, refuseSuperseded, type SentBy } from './skip-sent.js';
import { resolve as resolvePath } from 'node:path';
import type { Claim, ClaimOptions, Inspected } from '../../journal/claim.js';
import type { CampaignStore, Held } from '../../journal/store.js';
import { acquireLock, lockPath, type Lock } from '../../journal/lock.js';
import { KilledRunRefusal } from '../../journal/decide.js';
import type { JournalState } from '../../journal/journal.js';
import { isReport } from '../../report/read.js';
import { reportExistsError } from '../../report/writer.js';
import { unsentStateError, UsageError } from '../../shared/errors.js';
import { exists } from '../../shared/files.js';
import { SpoolWriter } from '../../validate/spool.js';
import { holdOriginal } from '../follow-up/index.js';
import type { CampaignRun } from '../run.js';
import type { Identified } from './identify.js';
import { takeKeptAnswers } from '../kept-answers.js';
import { unstamp } from './kept-spool.js';

/** What a run holds, released in reverse by close(); a dry run holds nothing. */
export class CampaignHold {
  claim: Claim | undefined;
  /** A dry run's look at the state. */
  looked: Inspected | undefined;
  spool: SpoolWriter | undefined;
  /** What taking the campaign found that its run should say before it starts: a rehearsal to set aside. */
  readonly notes: string[] = [];
  reportLock: Lock | undefined;
  originalLock: Lock | undefined;
  /** The campaigns --skip-sent-by names, held while this run goes, by ID. */
  readonly skipHolds = new Map<string, Held>();
  /** Of those, the ones this run sends the rest of: told so as it starts. */
  readonly supersedes = new Map<string, Held>();
  /** Whom they may have sent to: this run leaves those recipients out. */
  sentBy: SentBy[] = [];
  /** Whom the campaign's relatives may have sent to: counted, so a refusal can say how many. */
  seenBy: SentBy[] = [];
  /** --resume asked for, and no run of this content is recorded: its relatives say why. */
  resumedNothing = false;
  /** A recorded campaign whose report is where this run writes its own: set aside as it starts. */
  reportOwner: Owner | undefined;

  /** The journal to continue from (a --resume), the claim's or, in a dry run, the look's. */
  get journal(): JournalState | undefined {
    return this.claim?.journal ?? this.looked?.journal;
  }

  /** The spool this run's validation pass writes: no longer complete, so no longer stamped. */
  async openSpool(): Promise<void> {
    if (!this.claim) return;
    await unstamp(this.claim.local);
    this.spool = await SpoolWriter.create(this.claim.local.spool);
  }

  /** The validation pass wrote every record: the spool is complete. */
  async closeSpool(): Promise<void> {
    await this.spool?.close();
    this.spool = undefined;
  }

  /**
   * Releases what was taken, each step on its own: a disk that refuses a removal (read-only
   * since) leaves a lock of a dead run, which the next run takes over.
   */
  async close(): Promise<void> {
    const release = (step: Promise<void> | undefined) => step?.catch(() => undefined);
    await release(this.spool?.close());
    await release(this.reportLock?.release());
    await release(this.claim?.release());
    await release(this.originalLock?.release());
    for (const held of this.skipHolds.values()) await release(held.release());
  }
}

/**
 * Takes the campaign's state (exit 4 while another run holds it; exit 2 when it was sent or is
 * unfinished, unless --force or --resume), the report's lock and, for a follow-up, the original's.
 */
export async function claim(run: CampaignRun, identified: Identified): Promise<CampaignHold> {
  const { store, followUp, choices } = run;
  const { identity, reportPath } = identified;
  const hold = new CampaignHold();
  try {
    if (followUp) {
      await refuseSuperseded(identified.recorded, followUp.of.of);
      hold.originalLock = await holdOriginal(store, followUp, run.program);
    }
    // A report in the way is refused here, before anything is read, unless a rehearsal wrote it
    // (then it is moved aside when the run starts, Claim.start, never before) or a recorded
    // campaign did (its relative's refusal says so, after validation; sent, it is set aside).
    const present = await exists(reportPath);
    // --force and --resume write the report afresh: over a report, never over another file.
    const replaces = choices.force === true || choices.resume === true;
    if (present && replaces && !(await isReport(reportPath))) throw notAReport(reportPath);
    const existing = present && !choices.resume;
    const inTheWay = existing && !choices.force;
    const rehearsalReport =
      inTheWay && (await store.rehearsalOf(reportPath)) ? reportPath : undefined;
    hold.reportOwner = existing && !rehearsalReport ? ownerOf(identified) : undefined;
    hold.claim = await claimOrRelated(run, identified, hold, rehearsalReport);
    // Continued (--resume, --once, a follow-up's rows), a campaign another one sent the rest of
    // would send that one's recipients again.
    if (hold.claim.previous && !choices.force) {
      await refuseSuperseded(identified.recorded, identity.id);
    }
    onceResolved(run, hold.claim);
    const real = choices.simulate !== true;
    const skipped = await readSkipped(identified.skipping, identity.id, identified.recorded, {
      real,
      holds: hold.skipHolds,
    });
    // A rehearsal's messages reached nobody: it supersedes only rehearsals.
    for (const { entry } of identified.skipping) {
      const id = entry.manifest.id;
      if (real || entry.manifest.rehearsal === true)
        hold.supersedes.set(id, hold.skipHolds.get(id)!);
    }
    hold.sentBy = skipped.sentBy;
    hold.notes.push(...skipped.notes);
    hold.seenBy = await readRelatives(
      identified.relatives,
      hold.resumedNothing,
      identified.recorded,
      {
        own: identity.id,
        real,
        force: choices.force === true,
      },
    );
    hold.notes.push(...relativeNotes(identified.relatives));
    // The report's own lock keeps a delivery-report fold from rewriting it under this run.
    hold.reportLock = await acquireLock(lockPath(reportPath), `writing the report ${reportPath}`);
    await clearStaleReportLocks(hold.claim.previous?.reports ?? [], reportPath);
    if (hold.claim.rehearsal) {
      hold.notes.push(
        `campaign ${identity.id} was a rehearsal (sent to a simulator only): it is kept ` +
          'under a name of its own once this run starts sending it afresh',
      );
    }
    // The campaign's state has let this run in without --force or --resume: no run of it is
    // recorded, so the report is not its own unless a rehearsal wrote it.
    if (inTheWay && rehearsalReport === undefined && !choices.resume && !hold.reportOwner) {
      throw reportExistsError(reportPath, { campaign: identity.id, stateDir: store.where });
    }
    return hold;
  } catch (error) {
    await hold.close();
    // Nothing is sent while a campaign is claimed: a disk that refuses here refuses the run.
    throw unsentStateError(error) ?? (await asResumeFinds(run, identified, error));
  }
}

/**
 * A dry run's look at the campaign's state: what a real run would be refused with (a state
 * directory it cannot write too), and on --resume the journal it would continue.
 */
export async function look(run: CampaignRun, identified: Identified): Promise<CampaignHold> {
  const hold = new CampaignHold();
  const unwritable = await run.store.problem();
  hold.looked = unwritable
    ? { refusal: unwritable }
    : await run.store.inspect(await claimOptions(run, identified)).catch((error: unknown) => {
        throw unsentStateError(error) ?? error;
      });
  if (hold.looked.refusal?.code === 'nothing-to-resume' && identified.relatives.length > 0) {
    // This content is new: what it would send again, its relatives' refusal says.
    hold.resumedNothing = true;
    hold.looked = await run.store.inspect({
      ...(await claimOptions(run, identified)),
      resume: false,
    });
  }
  const { refusal } = hold.looked;
  if (refusal) hold.looked.refusal = await asResumeFinds(run, identified, refusal);
  onceResolved(run, hold.looked);
  const { identity, recorded } = identified;
  const real = run.choices.simulate !== true;
  const skipped = await readSkipped(identified.skipping, identity.id, recorded, { real });
  hold.sentBy = skipped.sentBy;
  hold.notes.push(...skipped.notes);
  hold.seenBy = await readRelatives(identified.relatives, hold.resumedNothing, recorded, {
    own: identity.id,
    real,
    force: run.choices.force === true,
  });
  hold.notes.push(...relativeNotes(identified.relatives));
  return hold;
}

/** --force and --resume replace a report, never another file (an input, a document). */
function notAReport(path: string): UsageError {
  return new UsageError(
    `${path} is not a report of sms-send's, and --force or --resume replaces reports only: --report names ` +
      'another file. Nothing was sent.',
    'not-a-report',
  );
}

/**
 * The store's claim; a --resume of content no run of which is recorded, whose relatives are, is
 * claimed as new: the relatives' refusal, after validation, says what it would send again.
 */
async function claimOrRelated(
  run: CampaignRun,
  identified: Identified,
  hold: CampaignHold,
  rehearsalReport: string | undefined,
): Promise<Claim> {
  const options = { ...(await claimOptions(run, identified)), rehearsalReport };
  try {
    return await run.store.claim(options);
  } catch (error) {
    const unresumed = error instanceof UsageError && error.code === 'nothing-to-resume';
    if (!unresumed || identified.relatives.length === 0) throw error;
    hold.resumedNothing = true;
    return run.store.claim({ ...options, resume: false });
  }
}

/** The recorded campaign (not this one, nor a rehearsal) whose report this run would write. */
function ownerOf({ relatives, skipping, reportPath }: Identified): Owner | undefined {
  const relative = relatives.find((r) => r.report);
  if (relative) return { id: relative.entry.manifest.id, store: relative.store };
  const path = resolvePath(reportPath);
  const skipped = skipping.find(
    (s) => !s.entry.manifest.rehearsal && s.entry.manifest.reports.includes(path),
  );
  return skipped && { id: skipped.entry.manifest.id, store: skipped.store };
}

/** A campaign that wrote a report, and the store that holds it. */
export interface Owner {
  id: string;
  store: CampaignStore;
}

/**
 * A killed run's refusal, counted as its --resume will find the campaign: with the answers its
 * report kept that its journal could not (a full disk), as the stop that ended it counted them
 * (docs/campaign-state.md#when-the-disk-fails). Counted from the journal alone when the report or
 * the spool cannot be read.
 */
async function asResumeFinds<E>(
  run: CampaignRun,
  identified: Identified,
  error: E,
): Promise<E | KilledRunRefusal> {
  if (!(error instanceof KilledRunRefusal)) return error;
  // A run sending it now (a dry run looks without the lock) is not counted from its files.
  const entry = await run.store.campaign(identified.identity.id).catch(() => undefined);
  if (entry?.status !== 'interrupted') return error;
  const options = { ...(await claimOptions(run, identified)), resume: true };
  const resumed = await run.store.inspect(options).catch(() => undefined);
  const { journal, local } = resumed ?? {};
  if (!journal || !local) return error;
  const taken = await takeKeptAnswers(journal, error.manifest.reports.at(-1), local.spool);
  return taken > 0 ? new KilledRunRefusal(error.manifest, journal, taken) : error;
}

/**
 * --once, once the state has decided: a campaign an earlier run left is this run's to finish, as
 * with --resume (its report is its own, its journal continued); any other is sent as new.
 */
function onceResolved(run: CampaignRun, state: { previous?: unknown }): void {
  if (run.choices.once && state.previous !== undefined) run.choices.resume = true;
}

async function claimOptions(
  run: CampaignRun,
  { identity, reportPath, hashes }: Identified,
): Promise<ClaimOptions> {
  const { choices } = run;
  const reportExists = !choices.force && (await exists(reportPath));
  return {
    identity,
    force: choices.force === true,
    resume: choices.resume === true,
    once: choices.once === true,
    inputs: hashes,
    // A report that would be refused as existing: --resume, finding nothing to resume, then
    // names --force beside its advice to drop --resume.
    existingReport: reportExists ? reportPath : undefined,
  };
}

/**
 * A run killed while it wrote an earlier report left that report's lock behind; when the campaign
 * is resumed under another report name nothing else would ever take it over. A lock whose owner
 * is alive (a delivery-report fold) is left alone, and so is anything that cannot be reached.
 */
async function clearStaleReportLocks(reports: readonly string[], current: string): Promise<void> {
  for (const report of reports) {
    if (resolvePath(report) === resolvePath(current)) continue;
    if (!(await exists(lockPath(report)))) continue;
    await acquireLock(lockPath(report))
      .then((lock) => lock.release())
      .catch(() => undefined);
  }
}
