// The machine-readable documents printed by --json: the dry-run plan, the run summary, errors.
// docs/json.md describes each; change both together.
import type { Problem, SmsSendError } from '../../shared/errors.js';
import type { Plan } from '../../validate/plan.js';
import type { RunSummary } from '../../report/summary.js';
import type { ResumeCounts } from '../../campaign/resume.js';

export function planJson(plan: Plan, campaign: string): Record<string, unknown> {
  return {
    plan: {
      campaign,
      records: plan.records,
      valid: plan.valid,
      invalid: plan.invalid,
      skipped: plan.skipped,
      suppressed: plan.suppressed,
      suppressedByList: plan.suppressedByList,
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
      invalidRecords: plan.invalidRecords,
      invalidByField: plan.invalidByField,
    },
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
): Record<string, unknown> {
  return {
    summary: {
      campaign,
      total: summary.total,
      byOutcome: summary.byOutcome,
      ...(summary.suppressed ? { suppressed: summary.suppressed } : {}),
      byStatusCode: summary.byStatusCode,
      startedAt: new Date(summary.startedAt).toISOString(),
      durationMs: summary.durationMs,
      messagesPerSecond: Math.round(summary.messagesPerSecond * 10) / 10,
      report: summary.reportPath,
      simulated,
      ...(stoppedReason ? { stoppedReason } : {}),
      ...(resumed ? { resumed } : {}),
      ...(resumeCommand ? { resumeCommand } : {}),
      exitCode,
    },
  };
}

/** The `error` member of an error document: `{"error": errorJson(e)}`. */
export function errorJson(
  error: Pick<SmsSendError, 'code' | 'message' | 'exitCode' | 'problems'>,
): {
  code: string;
  message: string;
  exitCode: number;
  problems?: readonly Problem[];
} {
  const { code, message, exitCode, problems } = error;
  return { code, message, exitCode, ...(problems ? { problems } : {}) };
}

/** A plan's problems, one per file problem and per problem of each listed invalid record. */
export function planProblems(plan: Plan): Problem[] {
  return [
    ...plan.fileProblems.map(({ file, message }) => ({ file, reason: message })),
    ...plan.invalidRecords.flatMap(({ file, line, row, problems }) =>
      problems.map(({ field, reason }) => ({ file, line, row, field, reason })),
    ),
  ];
}
