// --resume of a finished campaign with nothing left to send: answered from its manifest at once,
// without reading its journal or its inputs (a million records took minutes, and memory).
import { resolve as resolvePath } from 'node:path';
import type { Claim } from '../../journal/claim.js';
import type { CampaignIdentity } from '../../journal/identity.js';
import { listCampaigns, type Manifest, type ManifestSummary } from '../../journal/state.js';
import type { RunSummary } from '../../report/summary.js';
import { Tally } from '../../report/summary.js';
import { ExitCode } from '../../shared/errors.js';
import { isFile } from '../../shared/files.js';
import type { Plan } from '../../validate/plan.js';
import type { CampaignHold } from './hold.js';
import { noResumeCounts } from './resume.js';
import type { CampaignRequest, CampaignResult, PreparedCampaign } from '../types.js';

/**
 * The manifest answers when a resume would send nothing and rewrite the same report: the last run
 * finished and wrote its summary, no record failed (nor, with --retry-unknown, was unknown), the
 * report asked for is the campaign's newest and is there, and no follow-up re-sent any of its
 * records (a resume would report those as the follow-up's).
 */
export async function answersFromManifest(
  request: CampaignRequest,
  claim: Claim,
  reportPath: string,
): Promise<(Manifest & { summary: ManifestSummary }) | undefined> {
  const manifest = claim.previous;
  if (!claim.finished || !manifest?.summary || request.followUp) return undefined;
  const { failed, unknown } = manifest.counts;
  if (failed > 0 || (request.retryUnknown && unknown > 0)) return undefined;
  const report = manifest.reports.at(-1);
  if (report !== resolvePath(reportPath) || !(await isFile(report))) return undefined;
  const campaigns = await listCampaigns(request.settings.stateDir);
  if (campaigns.some((e) => e.manifest.followUp?.of === manifest.id)) return undefined;
  return { ...manifest, summary: manifest.summary };
}

/** A finished campaign as its manifest tells it: its summary again, nothing sent. */
export class AnsweredCampaign implements PreparedCampaign {
  readonly refusal = undefined;
  readonly toSend = 0;
  readonly resuming = true;
  readonly followUp = false;
  readonly stateRefusal = undefined;
  readonly tally = new Tally();
  readonly plan: Plan;
  readonly notes: readonly string[] = [];

  constructor(
    readonly identity: CampaignIdentity,
    readonly reportPath: string,
    private readonly manifest: Manifest & { summary: ManifestSummary },
    private readonly hold: CampaignHold,
    plan: Plan,
  ) {
    this.plan = plan;
  }

  send(): Promise<CampaignResult> {
    const { counts, records, summary: last } = this.manifest;
    const now = Date.now();
    const summary: RunSummary = {
      total: records,
      byOutcome: { ...counts },
      suppressed: last.suppressed,
      byStatusCode: structuredClone(last.byStatusCode),
      startedAt: now,
      finishedAt: now,
      durationMs: 0,
      messagesPerSecond: 0,
      reportPath: this.reportPath,
      exitCode:
        counts.accepted + counts.skipped === records ? ExitCode.ok : ExitCode.notAllAccepted,
    };
    return Promise.resolve({
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
      exitCode: summary.exitCode,
    });
  }

  close(): Promise<void> {
    return this.hold.close();
  }
}
