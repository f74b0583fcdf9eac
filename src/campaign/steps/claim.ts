// Step two of a campaign: its state decides whether it may be sent, and what a real run holds while
// it runs: the campaign's state (claimed), the report's lock, the original's lock for a follow-up,
// the spool. A dry run looks at the state without taking anything.
import { dirname, resolve as resolvePath } from 'node:path';
import { KilledRunRefusal, type ClaimOptions } from '../../journal/decide.js';
import { acquireLock, lockPath } from '../../journal/lock.js';
import { campaignById, rehearsalOf } from '../../journal/lookup.js';
import type { Claim, Found, Held } from '../../journal/store.js';
import { isReport } from '../../report/read.js';
import { reportExistsError } from '../../report/writer.js';
import {
  describeSystemError,
  systemErrorCode,
  unsentStateError,
  UsageError,
} from '../../shared/errors.js';
import { exists } from '../../shared/files.js';
import { holdOriginal } from '../follow-up/index.js';
import { takeKeptAnswers } from '../kept-answers.js';
import type { CampaignRun } from '../run.js';
import { Holdings, type Look, type Owner, type RunHold } from './hold.js';
import type { Identified } from './identify.js';
import { readRelatives, relativeNotes } from './relatives.js';
import { readSkipped, refuseSuperseded } from './skip-sent.js';

/**
 * Takes the campaign's state (exit 4 while another run holds it; exit 2 when it was sent or is
 * unfinished, unless --force or --resume), the report's lock and, for a follow-up, the original's.
 */
export async function claim(run: CampaignRun, identified: Identified): Promise<RunHold> {
  const { store, followUp, choices } = run;
  const { identity, reportPath } = identified;
  const held = new Holdings();
  try {
    if (followUp) {
      await refuseSuperseded(identified.recorded, followUp.of.of);
      held.originalLock = await holdOriginal(store, followUp, run.program);
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
      inTheWay && (await rehearsalOf(store, reportPath)) ? reportPath : undefined;
    const reportOwner = existing && !rehearsalReport ? ownerOf(identified) : undefined;
    const { claim, resumedNothing } = await claimOrRelated(run, identified, rehearsalReport);
    held.claim = claim;
    const { found } = claim;
    // Continued (--resume, --once, a follow-up's rows), a campaign another one sent the rest of
    // would send that one's recipients again.
    if (found.previous && !choices.force) {
      await refuseSuperseded(identified.recorded, identity.id);
    }
    const real = choices.simulate !== true;
    const skipped = await readSkipped(identified.skipping, identity.id, identified.recorded, {
      real,
      holds: held.skipHolds,
    });
    const seenBy = await readRelatives(identified.relatives, resumedNothing, identified.recorded, {
      own: identity.id,
      real,
      force: choices.force === true,
    });
    // The report's own lock keeps a delivery-report fold from rewriting it under this run.
    held.reportLock = await acquireLock(
      lockPath(reportPath),
      `writing the report ${reportPath}`,
    ).catch((error: unknown) => {
      throw reportFolderRefusal(error, reportPath);
    });
    await clearStaleReportLocks(found.previous?.reports ?? [], reportPath);
    const resume = resumes(run, found);
    // The campaign's state has let this run in without --force or --resume: no run of it is
    // recorded, so the report is not its own unless a rehearsal wrote it.
    if (inTheWay && rehearsalReport === undefined && !resume && !reportOwner) {
      throw reportExistsError(reportPath, { campaign: identity.id, stateDir: store.where });
    }
    return {
      kind: 'run',
      claim,
      found,
      resume,
      local: run.cache.files(identity.id),
      sentBy: skipped.sentBy,
      seenBy,
      resumedNothing,
      notes: [...skipped.notes, ...relativeNotes(identified.relatives)],
      reportOwner,
      skipHolds: held.skipHolds,
      supersedes: supersedes(identified, held.skipHolds, real),
      close: () => held.close(),
    };
  } catch (error) {
    await held.close();
    // Nothing is sent while a campaign is claimed: a disk that refuses here refuses the run.
    throw unsentStateError(error) ?? (await asResumeFinds(run, identified, error));
  }
}

/**
 * The campaigns --skip-sent-by names that this run sends the rest of, held: told so as it starts.
 * A rehearsal's messages reached nobody: it supersedes only rehearsals.
 */
function supersedes(
  identified: Identified,
  holds: ReadonlyMap<string, Held>,
  real: boolean,
): Held[] {
  return identified.skipping
    .filter(({ entry }) => real || entry.manifest.rehearsal === true)
    .flatMap(({ entry }) => holds.get(entry.manifest.id) ?? []);
}

/**
 * A finished rehearsal of this content, which a send keeps under a name of its own: a dry run's
 * note. A send says it once, with that name, as it starts (the claim's `start`).
 */
function rehearsalNote(id: string, found: Found): string[] {
  if (!found.rehearsal) return [];
  return [
    `campaign ${id} was a rehearsal (sent to a simulator only): a send keeps it ` +
      'under a name of its own and starts it afresh',
  ];
}

/**
 * A dry run's look at the campaign's state: what a real run would be refused with (a state
 * directory it cannot write too), and on --resume the journal it would continue.
 */
export async function look(run: CampaignRun, identified: Identified): Promise<Look> {
  const { store } = run;
  const unwritable = await store.problem();
  let resumedNothing = false;
  let looked = unwritable
    ? { refusal: unwritable, found: NOTHING_FOUND }
    : await store.inspect(await claimOptions(run, identified)).catch((error: unknown) => {
        throw unsentStateError(error) ?? error;
      });
  if (looked.refusal?.code === 'nothing-to-resume' && identified.relatives.length > 0) {
    // This content is new: what it would send again, its relatives' refusal says.
    resumedNothing = true;
    looked = await store.inspect({ ...(await claimOptions(run, identified)), resume: false });
  }
  const refusal = looked.refusal && (await asResumeFinds(run, identified, looked.refusal));
  const { found } = looked;
  const { identity, recorded } = identified;
  const real = run.choices.simulate !== true;
  const skipped = await readSkipped(identified.skipping, identity.id, recorded, { real });
  return {
    kind: 'look',
    refusal,
    found,
    resume: resumes(run, found),
    local: run.cache.files(identity.id),
    sentBy: skipped.sentBy,
    seenBy: await readRelatives(identified.relatives, resumedNothing, recorded, {
      own: identity.id,
      real,
      force: run.choices.force === true,
    }),
    resumedNothing,
    notes: [
      ...skipped.notes,
      ...relativeNotes(identified.relatives),
      ...rehearsalNote(identity.id, found),
    ],
  };
}

const NOTHING_FOUND = { finished: false, done: false } as const;

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
  rehearsalReport: string | undefined,
): Promise<{ claim: Claim; resumedNothing: boolean }> {
  const options = { ...(await claimOptions(run, identified)), rehearsalReport };
  try {
    return { claim: await run.store.claim(options), resumedNothing: false };
  } catch (error) {
    const unresumed = error instanceof UsageError && error.code === 'nothing-to-resume';
    if (!unresumed || identified.relatives.length === 0) throw error;
    return { claim: await run.store.claim({ ...options, resume: false }), resumedNothing: true };
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
  const entry = await campaignById(run.store, identified.identity.id).catch(() => undefined);
  if (entry?.status !== 'interrupted') return error;
  const options = { ...(await claimOptions(run, identified)), resume: true };
  const resumed = await run.store.inspect(options).catch(() => undefined);
  const journal = resumed?.found.journal;
  if (!journal || !resumed.found.previous) return error;
  const spool = run.cache.files(identified.identity.id).spool;
  const taken = await takeKeptAnswers(journal, error.manifest.reports.at(-1), spool);
  return taken > 0 ? new KilledRunRefusal(error.manifest, journal, taken) : error;
}

/**
 * Whether the run continues the campaign: --resume, or --once of a campaign an earlier run left
 * (it is this run's to finish, its report its own, its journal continued); any other is new.
 */
function resumes(run: CampaignRun, found: Found): boolean {
  return run.choices.resume === true || (run.choices.once === true && found.previous !== undefined);
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

/**
 * The report's lock could not be written beside it: the report's folder is what to change, and
 * --report the way to write elsewhere (the lock's own words speak of the state directory's).
 */
function reportFolderRefusal(error: unknown, reportPath: string): unknown {
  if (!(error instanceof UsageError) || error.code !== 'state-unwritable') return error;
  const cause = error.cause;
  const folder = dirname(resolvePath(reportPath));
  const code = systemErrorCode(cause);
  const fix =
    code === 'ENOSPC' || code === 'EDQUOT'
      ? `Make room in ${folder}, or give --report a path on another disk`
      : `${folder} cannot be written here (read-only, or not this user's): give --report a path in a folder you can write`;
  const refusal = new UsageError(
    `cannot write beside the report ${reportPath}: ${describeSystemError(cause)}; nothing was sent. ${fix}.`,
    'report-unwritable',
  );
  refusal.cause = cause;
  return refusal;
}
