// The result documents: the dry run's plan, the run's summary, an error, and each other command's
// (campaigns, report, dlr, dlr apply). `--json` prints them and the programmatic API returns them,
// the same objects; docs/json.md describes each, change both together.
import type { FoldResult, LogCounts } from '../dlr/apply.js';
import { systemClock } from '../shared/clock.js';
import type { CampaignEntry } from '../journal/store.js';
import type { Outcome } from '../message/outcome.js';
import type { ReportCounts } from '../report/read.js';
import { messagesOf, type RunSummary } from '../report/summary.js';
import type { Problem, SmsSendError } from '../shared/errors.js';
import { windowState, type SendWindow, type WindowState } from '../shared/window.js';
import type { Plan } from '../validate/plan.js';
import type { ShownCampaign } from './types.js';
import type { ReceiverSummary } from './deliveries.js';
import type { CampaignResult, PlannedCampaign, ResumeCounts, StateLeft } from './types.js';
import type { RetryPlan } from './follow-up/index.js';
import type { Settings } from '../config/settings.js';

/** The `error` member of an error document. */
export interface ErrorJson {
  code: string;
  message: string;
  exitCode: number;
  problems?: readonly Problem[];
}

/** `plan.window`: the send window, and whether it is open now. */
export interface WindowJson {
  hours: string | null;
  days: string | null;
  timeZone: string;
  notBefore: string | null;
  open: boolean;
  opensAt?: string;
  closesAt?: string | null;
}

/** What a dry run found: `{plan}` (docs/json.md#send---dry-run). */
export interface PlanJson extends Pick<
  Plan,
  | 'records'
  | 'valid'
  | 'invalid'
  | 'skipped'
  | 'suppressed'
  | 'suppressedByList'
  | 'sentBy'
  | 'alreadySent'
  | 'batches'
  | 'batchSize'
  | 'segments'
  | 'segmentsByEncoding'
  | 'messagesByEncoding'
  | 'ucs2Chars'
  | 'ucs2CharCount'
  | 'normalized'
  | 'normalizable'
  | 'cost'
  | 'fileProblems'
  | 'malformed'
  | 'malformedRows'
  | 'invalidRecords'
  | 'invalidByField'
> {
  /** A column in single braces and the like, when there is any. */
  warnings?: Plan['warnings'];
  campaign: string;
  premium: { messages: number; totalOre: number };
  /** A resumed campaign: the records an earlier run did not settle. */
  leftToSend?: number;
  window?: WindowJson;
}

export interface PlanDocument {
  plan: PlanJson;
  /** Present when a real run would be refused (the error carries this document). */
  error?: ErrorJson;
}

/** How a send went: `{summary}` (docs/json.md#send). */
export interface SummaryJson {
  campaign: string;
  total: number;
  byOutcome: Record<Outcome, number>;
  suppressed?: number;
  /** Of the skipped, those left out by --skip-sent-by. */
  sentBefore?: number;
  byStatusCode: Record<string, { count: number; description: string }>;
  /** ISO 8601. */
  startedAt: string;
  durationMs: number;
  messagesPerSecond: number;
  report: string;
  /** The host whose run wrote `report`, when another host's did (a finished campaign's, on --once). */
  reportHost?: string;
  /** This host's file at the report path the run named, which is not the campaign's report. */
  staleReport?: string;
  simulated: boolean;
  /** The gateway could not be used (exit 3). */
  stoppedReason?: string;
  /** A resumed run: results taken from the journal, and those in flight when it stopped. */
  resumed?: ResumeCounts;
  /** Stopped or interrupted, from the command line: the command that finishes the campaign. */
  resumeCommand?: string;
  /** The send window closed before every record was sent (exit 5). */
  windowClosed?: { window: string; sent: number; left: number; opensAt: string };
  /**
   * Campaign state could not be written (exit 6): the campaign as the resume will find it
   * (docs/campaign-state.md#when-the-disk-fails).
   */
  stateLeft?: StateLeft;
  exitCode: number;
}

export interface SummaryDocument {
  summary: SummaryJson;
}

export function planJson(plan: Plan, campaign: string): { plan: PlanJson } {
  return {
    plan: {
      campaign,
      records: plan.records,
      valid: plan.valid,
      invalid: plan.invalid,
      skipped: plan.skipped,
      suppressed: plan.suppressed,
      suppressedByList: plan.suppressedByList,
      sentBy: plan.sentBy,
      alreadySent: plan.alreadySent,
      batches: plan.batches,
      batchSize: plan.batchSize,
      segments: plan.segments,
      segmentsByEncoding: plan.segmentsByEncoding,
      messagesByEncoding: plan.messagesByEncoding,
      ucs2Chars: plan.ucs2Chars,
      ucs2CharCount: plan.ucs2CharCount,
      ...(plan.normalized ? { normalized: plan.normalized } : {}),
      ...(plan.normalizable ? { normalizable: plan.normalizable } : {}),
      ...(plan.cost ? { cost: plan.cost } : {}),
      premium: { messages: plan.premiumMessages, totalOre: plan.premiumTotal },
      fileProblems: plan.fileProblems,
      ...(plan.warnings.length > 0 ? { warnings: plan.warnings } : {}),
      malformed: plan.malformed,
      malformedRows: plan.malformedRows,
      invalidRecords: plan.invalidRecords,
      invalidByField: plan.invalidByField,
    },
  };
}

/**
 * A campaign campaign's dry-run document: the plan, what a resume leaves to send, and the send
 * window with whether it is open at `now`. `extra` goes beside `plan` (retry's `followUp`).
 */
export function planDocument<Extra extends object = object>(
  campaign: PlannedCampaign,
  sendWindow: SendWindow | undefined,
  extra?: Extra,
  now = systemClock.now(),
): PlanDocument & Extra {
  const document = { ...planJson(campaign.plan, campaign.identity.id), ...extra } as PlanDocument &
    Extra;
  if (campaign.resuming) document.plan.leftToSend = campaign.toSend;
  if (sendWindow) document.plan.window = windowJson(sendWindow, windowState(sendWindow, now));
  return document;
}

/** `plan.window` of the dry run's document. */
export function windowJson(window: SendWindow, state: WindowState): WindowJson {
  const iso = (at: number | undefined) =>
    at === undefined ? undefined : new Date(at).toISOString();
  return {
    hours: window.text.hours ?? null,
    days: window.text.days ?? null,
    timeZone: window.timeZone,
    notBefore: iso(window.notBefore) ?? null,
    open: state.open,
    ...(state.open ? { closesAt: iso(state.closesAt) ?? null } : { opensAt: iso(state.opensAt) }),
  };
}

export function summaryJson(
  summary: RunSummary,
  exitCode: number,
  simulated: boolean,
  stoppedReason: string | undefined,
  resumed: ResumeCounts | undefined,
  campaign: string,
  /** For a run that stopped or was interrupted: the command line that finishes it. */
  resumeCommand?: string,
): SummaryDocument {
  return {
    summary: {
      campaign,
      total: summary.total,
      byOutcome: summary.byOutcome,
      ...(summary.suppressed ? { suppressed: summary.suppressed } : {}),
      ...(summary.sentBefore ? { sentBefore: summary.sentBefore } : {}),
      byStatusCode: summary.byStatusCode,
      startedAt: new Date(summary.startedAt).toISOString(),
      durationMs: summary.durationMs,
      messagesPerSecond: Math.round(summary.messagesPerSecond * 10) / 10,
      report: summary.reportPath ?? '',
      simulated,
      ...(stoppedReason ? { stoppedReason } : {}),
      ...(resumed ? { resumed } : {}),
      ...(resumeCommand ? { resumeCommand } : {}),
      exitCode,
    },
  };
}

/** A send pass's document; `extra` goes beside `summary` (retry's `followUp`). */
export function summaryDocument<Extra extends object = object>(
  result: CampaignResult,
  context: { campaign: string; simulated: boolean; resumeCommand?: string; extra?: Extra },
): SummaryDocument & Extra {
  const { send: run, summary, exitCode, windowClosed } = result;
  const document = {
    ...summaryJson(
      summary,
      exitCode,
      context.simulated,
      run.stopped?.reason,
      run.resumed,
      context.campaign,
      context.resumeCommand,
    ),
    ...context.extra,
  } as SummaryDocument & Extra;
  if (run.left) document.summary.stateLeft = run.left;
  const elsewhere = result.reportElsewhere;
  if (elsewhere?.host) document.summary.reportHost = elsewhere.host;
  if (elsewhere?.staleHere) document.summary.staleReport = elsewhere.staleHere;
  if (windowClosed) {
    document.summary.windowClosed = {
      window: windowClosed.window,
      sent: windowClosed.sent,
      left: windowClosed.left,
      opensAt: new Date(windowClosed.opensAt).toISOString(),
    };
  }
  return document;
}

/** The `error` member of an error document: `{"error": errorJson(e)}`. */
export function errorJson(
  error: Pick<SmsSendError, 'code' | 'message' | 'exitCode' | 'problems'>,
): ErrorJson {
  const { code, message, exitCode, problems } = error;
  return { code, message, exitCode, ...(problems ? { problems } : {}) };
}

/** A plan's problems, one per file problem and per problem of each listed invalid record. */
export function planProblems(plan: Plan): Problem[] {
  return [
    ...plan.fileProblems.map(({ file, message }) => ({ file, reason: message })),
    ...[...plan.malformedRows, ...plan.invalidRecords].flatMap(({ file, line, row, problems }) =>
      problems.map(({ field, reason }) => ({ file, line, row, field, reason })),
    ),
  ];
}

/**
 * `sms-send campaigns --json`: where the campaigns are, and each of them; the counts of one a run
 * is sending, or whose run was killed, null (its manifest holds its start's: `campaigns show`
 * counts it from its journal).
 */
export function campaignListDocument(where: string, entries: readonly CampaignEntry[]) {
  return {
    state: where,
    campaigns: entries.map((entry) => ({
      ...campaignDocument(entry),
      counts: countsKnown(entry) ? entry.counts : null,
    })),
  };
}

/**
 * The messages a campaign's counts are "of", as the summary of the run that wrote them counted
 * them: its records but the invalid ones and those skipped on purpose. A manifest that does not
 * say which skipped rows were (written before it kept them) is taken at its word where it can be:
 * a finished campaign's skipped rows all were; an unfinished one's may be records a stop left.
 */
export function campaignMessages(entry: CampaignEntry): number {
  const { manifest, counts } = entry;
  const notToSend =
    manifest.summary?.notToSend ?? (manifest.status === 'finished' ? counts.skipped : 0);
  return messagesOf(manifest.records, counts, notToSend);
}

/** Whether a campaign's manifest has its counts: no run is sending it, and its last one ended. */
export function countsKnown(entry: CampaignEntry): boolean {
  return entry.status !== 'running' && entry.manifest.status !== 'running';
}

/** `sms-send campaigns prune --json`: the campaigns whose state was removed. */
export function pruneDocument(where: string, removed: readonly string[], dryRun = false) {
  // A dry run's IDs under a key of their own, so that no script reads them as removed.
  return dryRun ? { state: where, wouldRemove: removed } : { state: where, removed };
}

/** The stable JSON shape of one campaign (`campaigns --json`, `campaigns show --json`). */
export function campaignDocument(entry: CampaignEntry) {
  const m = entry.manifest;
  return {
    id: m.id,
    named: m.named,
    status: entry.status,
    createdAt: m.createdAt,
    startedAt: m.startedAt,
    finishedAt: m.finishedAt ?? null,
    runs: m.runs,
    records: m.records,
    counts: entry.counts,
    inputs: m.inputs,
    target: m.target,
    report: m.reports.at(-1) ?? null,
    reports: m.reports,
    reason: m.reason ?? null,
    followUp: m.followUp ?? null,
    rehearsal: m.rehearsal === true,
    state: entry.where,
    host: entry.host ?? null,
    goneUntil: entry.goneUntil ?? null,
  };
}

/** `sms-send report --json`. */
export function reportCountsDocument(counts: ReportCounts): Record<string, unknown> {
  return { report: counts };
}

/** `sms-send dlr --json`: the summary as one document (docs/json.md). */
export function receiverDocument(summary: ReceiverSummary): Record<string, unknown> {
  const { counts, fold } = summary;
  return {
    dlr: {
      report: summary.reportPath ?? null,
      keptIn: summary.keptIn ?? null,
      log: summary.logPath,
      received: counts.received,
      byStatus: counts.byStatus,
      withoutStatus: counts.withoutStatus,
      malformed: counts.malformed,
      refused: counts.refused,
      notLogged: counts.notLogged,
      confirmed: summary.confirmed ?? 0,
      fold: fold === undefined ? null : foldDocument(fold),
    },
  };
}

/** `sms-send dlr apply --json`. */
export function dlrApplyDocument(
  log: LogCounts,
  fold: Extract<FoldResult, { kind: 'updated' }>,
  paths: { reportPath: string; logPath: string },
): Record<string, unknown> {
  return {
    dlrApply: {
      report: paths.reportPath,
      log: paths.logPath,
      reports: log.reports,
      withoutStatus: log.withoutStatus,
      malformed: log.malformed,
      refused: log.refused,
      ...foldDocument(fold),
    },
  };
}

function foldDocument(fold: FoldResult): Record<string, unknown> {
  if (fold.kind === 'deferred')
    return { kind: fold.kind, reason: fold.reason, message: fold.message };
  return {
    kind: fold.kind,
    matched: fold.matched,
    unmatched: fold.unmatched,
    changedRows: fold.changedRows,
    confirmed: fold.confirmed,
  };
}

/** The `followUp` member of retry's --json documents. */
export function followUpDocument(plan: RetryPlan) {
  const { selection } = plan;
  return {
    followUp: {
      of: plan.original.manifest.id,
      report: plan.report,
      include: plan.followUp?.of.include ?? [],
      records: plan.followUp?.rows.size ?? 0,
      chosen: selection.chosen,
      left: selection.left,
      alreadyRetried: selection.alreadyRetried,
      earlierFollowUps: selection.earlierFollowUps,
    },
  };
}

/** `sms-send config --profiles --json`. */
export function profilesDocument(file: string | null, defined: Settings['profiles']) {
  return { profiles: { file, defined } };
}

/** One setting as `config --json` shows it: its value and the layer it came from. */
export interface ShownSetting {
  key: string;
  value: unknown;
  source: string | undefined;
}

/** `sms-send config --json`: each setting given a value, with its source. */
export function configDocument(
  file: string | null,
  profile: string | null,
  rows: readonly ShownSetting[],
) {
  const settings = Object.fromEntries(
    rows
      .filter((row) => row.value !== undefined)
      .map((row) => [row.key, { value: row.value, source: row.source ?? 'default' }]),
  );
  return { config: { file, profile, settings } };
}

/** `sms-send campaigns show --json`: the campaign, and what --force runs set aside of it. */
export function campaignShowDocument(entry: ShownCampaign) {
  return {
    ...campaignDocument(entry),
    inFlight: entry.inFlight,
    setAside: entry.setAside,
    followUps: entry.followUps,
    deliveries: entry.deliveries ?? null,
  };
}
