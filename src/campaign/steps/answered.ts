// Step three of a campaign: a finished one that a --resume (or --once) would send nothing of is
// answered from its manifest at once, without reading its journal or its inputs, which grow with
// every record.
import { hostname } from 'node:os';
import { resolve as resolvePath } from 'node:path';
import type { Manifest, ManifestSummary } from '../../journal/manifest.js';
import { finishedExitCode, type RunSummary } from '../../report/summary.js';
import { isFile } from '../../shared/files.js';
import type { CampaignRun } from '../run.js';
import type { CampaignResult, ReportElsewhere } from '../types.js';
import { planCampaign } from '../../validate/plan.js';
import type { Look, RunHold } from './hold.js';
import type { Identified } from './identify.js';
import { noResumeCounts } from './resume.js';
import { planned, type Answered, type ManifestAnswer } from './planned.js';

const NO_SUMMARY: ManifestSummary = { byStatusCode: {}, suppressed: 0 };

/** The campaign as its manifest answers it, planned with as many records; undefined when it does not. */
export async function answerFinished(
  run: CampaignRun,
  identified: Identified,
  hold: RunHold | Look,
): Promise<Answered | undefined> {
  // A dry run looks at the state; only a real run is answered.
  if (hold.kind === 'look') return undefined;
  const answer = await answersFromManifest(run, hold, identified.reportPath);
  if (!answer) return undefined;
  const plan = await planCampaign(
    { fileProblems: [], fileWarnings: [], records: async function* () {} },
    { batchSize: run.settings.batchSize },
  );
  const campaign = planned(run, identified, hold, {
    plan: { ...plan, records: answer.records },
    toSend: 0,
    resuming: true,
  });
  return { ...campaign, refusal: undefined, followUp: false, answer };
}

/**
 * The manifest answers when a resume would send nothing and rewrite the same report: the last run
 * finished and wrote its summary, no record failed (nor, with --retry-unknown, was unknown), the
 * report asked for is the campaign's newest and is there, and no follow-up re-sent any of its
 * records (a resume would report those as the follow-up's).
 */
async function answersFromManifest(
  run: CampaignRun,
  { found }: RunHold,
  reportPath: string,
): Promise<ManifestAnswer | undefined> {
  const manifest = found.previous;
  // --once of a finished campaign: its manifest answers, whatever it holds.
  if (found.done && manifest) {
    const elsewhere = await reportElsewhere(manifest, reportPath);
    return {
      ...manifest,
      summary: manifest.summary ?? NO_SUMMARY,
      done: true,
      ...(elsewhere ? { elsewhere } : {}),
    };
  }
  if (!found.finished || !manifest?.summary || run.followUp) return undefined;
  // A --limit it was sent with left records out: another limit (or none) sends them.
  if (manifest.limit !== run.choices.limit && manifest.counts.skipped > 0) return undefined;
  const { failed, unknown } = manifest.counts;
  if (failed > 0 || (run.choices.retryUnknown && unknown > 0)) return undefined;
  const report = manifest.reports.at(-1);
  if (report !== resolvePath(reportPath) || !(await isFile(report))) return undefined;
  const campaigns = await run.store.campaigns();
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
    // A finished campaign left out its skipped records on purpose (--limit, a suppression list,
    // --dedupe): its summary counts them as the run that finished it did, not as messages.
    notToSend: last.notToSend ?? counts.skipped,
    reportPath: answer.elsewhere?.report ?? reportPath,
    // A --once or --resume that finds it finished ends as the run that finished it did.
    exitCode: finishedExitCode(counts, records),
  };
  return {
    send: {
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
