// Step two of a campaign: its report path, and what a real run holds while it runs: the
// campaign's state (claimed), the report's lock, the original's lock for a follow-up, the spool.
import { basename, dirname, extname, join, resolve as resolvePath } from 'node:path';
import { claimCampaign, inspectCampaign, type Claim } from '../../journal/claim.js';
import { expandPlaceholders, type CampaignIdentity } from '../../journal/identity.js';
import { acquireLock, lockPath, type Lock } from '../../journal/lock.js';
import { rehearsalOf } from '../../journal/rehearsal.js';
import { stateDirProblem } from '../../journal/state.js';
import { reportFormat } from '../../report/format.js';
import { reportExistsError } from '../../report/writer.js';
import { UsageError } from '../../shared/errors.js';
import { exists } from '../../shared/files.js';
import { SpoolWriter } from '../../validate/spool.js';
import { holdOriginal } from '../follow-up/index.js';
import { unstamp } from './kept-spool.js';
import type { CampaignRequest } from '../types.js';

/** The report path, refused (exit 2) when its format is unknown or its folder does not exist. */
export async function reportPathFor(
  request: CampaignRequest,
  identity: CampaignIdentity,
): Promise<string> {
  const reportPath = expandReportPath(
    request.report,
    request.files[0]!.label,
    request.now,
    identity.id,
  );
  reportFormat(reportPath);
  if (!(await exists(dirname(reportPath) || '.'))) {
    throw new UsageError(
      `cannot write the report ${reportPath}: the folder ${dirname(reportPath)} does not exist`,
    );
  }
  return reportPath;
}

/** What a run holds, released in reverse by close(); a dry run holds nothing. */
export class CampaignHold {
  claim: Claim | undefined;
  spool: SpoolWriter | undefined;
  /** What taking the campaign did that its run should say: a rehearsal set aside, and its report. */
  readonly notes: string[] = [];
  private reportLock: Lock | undefined;
  private originalLock: Lock | undefined;

  /**
   * Takes the campaign's state (exit 4 while another run holds it; exit 2 when it was sent or is
   * unfinished, unless --force or --resume). A dry run looks at the state without taking it: it
   * says what a real run would be refused with, and on --resume counts only what is left.
   */
  async take(
    request: CampaignRequest,
    taken: {
      identity: CampaignIdentity;
      reportPath: string;
      hashes: { sha256: string; bytes: number }[];
    },
  ): Promise<Awaited<ReturnType<typeof inspectCampaign>> | undefined> {
    const { settings, followUp } = request;
    const { reportPath } = taken;
    // A report that would be refused as existing: --resume, finding nothing to resume, then
    // names --force beside its advice to drop --resume.
    const reportExists = !request.force && (await exists(reportPath));
    const claimOptions = {
      stateDir: settings.stateDir,
      identity: taken.identity,
      force: request.force,
      resume: request.resume,
      inputs: taken.hashes,
      existingReport: reportExists ? reportPath : undefined,
    };
    if (request.dryRun) {
      // A real run would be refused by a state directory it cannot write: the dry run says so.
      const unwritable = await stateDirProblem(settings.stateDir);
      return unwritable ? { refusal: unwritable } : inspectCampaign(claimOptions);
    }
    if (followUp)
      this.originalLock = await holdOriginal(settings.stateDir, followUp, request.program);
    // A report in the way is refused here, before anything is read, unless a rehearsal wrote it:
    // then it is moved aside when the run starts (Claim.start), never before.
    const inTheWay = !request.force && !request.resume && (await exists(reportPath));
    const rehearsalReport =
      inTheWay && (await rehearsalOf(settings.stateDir, reportPath)) ? reportPath : undefined;
    this.claim = await claimCampaign({ ...claimOptions, rehearsalReport });
    // The report's own lock keeps a delivery-report fold from rewriting it under this run.
    this.reportLock = await acquireLock(lockPath(reportPath), `writing the report ${reportPath}`);
    await clearStaleReportLocks(this.claim.previous?.reports ?? [], reportPath);
    if (this.claim.rehearsal) {
      this.notes.push(
        `campaign ${taken.identity.id} was a rehearsal (sent to a simulator only): it is kept ` +
          'under a name of its own once this run starts sending it afresh',
      );
    }
    // The campaign's state has let this run in without --force or --resume: no run of it is
    // recorded, so the report is not its own unless a rehearsal wrote it.
    if (inTheWay && rehearsalReport === undefined) {
      throw reportExistsError(reportPath, {
        campaign: taken.identity.id,
        stateDir: settings.stateDir,
      });
    }
    return undefined;
  }

  /** The spool this run's validation pass writes: no longer complete, so no longer stamped. */
  async openSpool(): Promise<void> {
    if (!this.claim) return;
    await unstamp(this.claim.paths);
    this.spool = await SpoolWriter.create(this.claim.paths.spool);
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
  }
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
 * The report path: `--report` with {date}, {time} and {name} filled (so a cron line gets one
 * report per night), or `<input basename>.report.csv` beside the first input; for standard input,
 * `stdin-<campaign ID>.report.csv`, so two different piped campaigns do not share a report.
 */
export function expandReportPath(
  template: string | undefined,
  input: string,
  now: Date,
  campaignId: string,
): string {
  if (template !== undefined) return expandPlaceholders(template, input, now);
  if (input === '-') return `stdin-${campaignId.slice(0, 8)}.report.csv`;
  return join(dirname(input), `${basename(input, extname(input))}.report.csv`);
}
