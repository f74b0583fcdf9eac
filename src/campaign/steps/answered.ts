// --resume of a finished campaign with nothing left to send: answered from its manifest at once,
// without reading its journal or its inputs, which grow with every record.
import { hostname } from 'node:os';
import { resolve as resolvePath } from 'node:path';
import { type Manifest, type ManifestSummary } from '../../journal/state.js';
import type { RunSummary } from '../../report/summary.js';
import { ExitCode } from '../../shared/errors.js';
import { isFile } from '../../shared/files.js';
import type { CampaignRun } from '../run.js';
import type { CampaignResult, ReportElsewhere } from '../types.js';
import type { CampaignHold } from './claim.js';
import { noResumeCounts } from './resume.js';

/** A finished campaign's manifest, with the summary its last run wrote. */
export type ManifestAnswer = Manifest & {
  summary: ManifestSummary;
  /** --once: the campaign is finished, and that is all this run had to know (exit 0). */
  done?: boolean;
  /** The campaign's report, when it is not the file this run names on this host. */
  elsewhere?: ReportElsewhere;
};

const NO_SUMMARY: ManifestSummary = { byStatusCode: {}, suppressed: 0 };

/**
 * The manifest answers when a resume would send nothing and rewrite the same report: the last run
 * finished and wrote its summary, no record failed (nor, with --retry-unknown, was unknown), the
 * report asked for is the campaign's newest and is there, and no follow-up re-sent any of its
 * records (a resume would report those as the follow-up's).
 */
export async function answersFromManifest(
  run: CampaignRun,
  hold: CampaignHold,
  reportPath: string,
): Promise<ManifestAnswer | undefined> {
  const { claim } = hold;
  const manifest = claim?.previous;
  // --once of a finished campaign: its manifest answers, whatever it holds.
  if (claim?.done && manifest) {
    const elsewhere = await reportElsewhere(manifest, reportPath);
    return {
      ...manifest,
      summary: manifest.summary ?? NO_SUMMARY,
      done: true,
      ...(elsewhere ? { elsewhere } : {}),
    };
  }
  if (!claim?.finished || !manifest?.summary || run.followUp) return undefined;
  // A --limit it was sent with left records out: another limit (or none) sends them.
  if (manifest.limit !== run.choices.limit && manifest.counts.skipped > 0) return undefined;
  const { failed, unknown } = manifest.counts;
  if (failed > 0 || (run.choices.retryUnknown && unknown > 0)) return undefined;
  const report = manifest.reports.at(-1);
  if (report !== resolvePath(reportPath) || !(await isFile(report))) return undefined;
  const campaigns = await run.store.list();
  if (campaigns.some((e) => e.manifest.followUp?.of === manifest.id)) return undefined;
  return { ...manifest, summary: manifest.summary };
}

/**
 * Where a finished campaign's report is, when it is not the file at `reportPath` on this host: the
 * newest run wrote it, on its host (every pod of a fleet may name the same path). This host's file
 * at that path, one a run of the campaign named, is then not its report.
 */
async function reportElsewhere(
  manifest: Manifest,
  reportPath: string,
): Promise<ReportElsewhere | undefined> {
  const report = manifest.reports.at(-1);
  if (report === undefined) return undefined;
  const here = resolvePath(reportPath);
  const host =
    manifest.host !== undefined && manifest.host !== hostname() ? manifest.host : undefined;
  if (report === here && host === undefined) return undefined;
  const stale = manifest.reports.includes(here) && (await isFile(here));
  return { report, ...(host ? { host } : {}), ...(stale ? { staleHere: here } : {}) };
}

/** The result a finished campaign's manifest gives: its summary again, nothing sent. */
export function answeredResult(
  run: CampaignRun,
  answer: ManifestAnswer,
  reportPath: string,
): CampaignResult {
  const { counts, records, summary: last } = answer;
  const now = run.io.clock.now();
  const summary: RunSummary = {
    total: records,
    byOutcome: { ...counts },
    suppressed: last.suppressed,
    byStatusCode: structuredClone(last.byStatusCode),
    startedAt: now,
    finishedAt: now,
    durationMs: 0,
    messagesPerSecond: 0,
    reportPath: answer.elsewhere?.report ?? reportPath,
    exitCode:
      answer.done || counts.accepted + counts.skipped === records
        ? ExitCode.ok
        : ExitCode.notAllAccepted,
  };
  return {
    run: {
      interrupted: false,
      notSent: 0,
      // Every record the gateway answered, or may have (no record failed): the journal's.
      resumed: {
        ...noResumeCounts(),
        fromJournal: counts.accepted + counts.rejected + counts.unknown,
      },
    },
    summary,
    ...(answer.elsewhere ? { reportElsewhere: answer.elsewhere } : {}),
    exitCode: summary.exitCode,
  };
}
