// The machine-readable documents printed by --json: the dry-run plan and the run summary.
import type { Plan } from '../../message/plan.js';
import type { RunSummary } from '../../report/summary.js';
import type { ResumeCounts } from '../../send/resume.js';

export function planJson(plan: Plan, campaign: string): Record<string, unknown> {
  return {
    plan: {
      campaign,
      records: plan.records,
      valid: plan.valid,
      invalid: plan.invalid,
      skipped: plan.skipped,
      batches: plan.batches,
      batchSize: plan.batchSize,
      segments: plan.segments,
      segmentsByEncoding: plan.segmentsByEncoding,
      messagesByEncoding: plan.messagesByEncoding,
      ucs2Chars: plan.ucs2Chars,
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
): Record<string, unknown> {
  return {
    summary: {
      campaign,
      total: summary.total,
      byOutcome: summary.byOutcome,
      byStatusCode: summary.byStatusCode,
      startedAt: new Date(summary.startedAt).toISOString(),
      durationMs: summary.durationMs,
      messagesPerSecond: Math.round(summary.messagesPerSecond * 10) / 10,
      report: summary.reportPath,
      simulated,
      ...(stoppedReason ? { stoppedReason } : {}),
      ...(resumed ? { resumed } : {}),
      exitCode,
    },
  };
}
