// The end-to-end canary of `check --await-dlr`: one test message sent, and its delivery report awaited.
import {
  checkGateway,
  type CheckResult,
  type CheckRetries,
  type TestMessage,
} from '../gateway/check.js';
import { systemClock } from '../shared/clock.js';
import type { GatewayClient } from '../gateway/client.js';
import { isDelivered, isInterim } from '../report/delivery-status.js';

/** What became of the test message after the gateway accepted it. */
export interface CanaryDelivery {
  /** The final status reported, absent when none came in time. */
  status?: string;
  delivered: boolean;
  /** When the test message was sent (ISO 8601). */
  sentAt: string;
  /** From sending to the gateway's answer. */
  acceptedAfterMs: number;
  /** From sending to the final delivery report, when one came. */
  reportAfterMs?: number;
  /** How long it waited, after acceptance, for a final report. */
  awaitMs: number;
  /** The DeliveryReportUrl the test message carried. */
  deliveryReportUrl: string;
  /** Interim statuses (ENROUTE, BUFFRED) reported before the final one, in order. */
  interim: string[];
}

/** The check's result, with the delivery once the gateway accepted the test message. */
export interface CanaryResult extends CheckResult {
  delivery?: CanaryDelivery;
}

/** A delivery report as the canary reads it: which message, and what became of it. */
export interface CanaryReport {
  messageId: string;
  status?: string;
}

/**
 * Where the canary hears of delivery reports: calls `onReport` with each one as it comes, until
 * the function it returned is called.
 */
export type CanaryReports = (onReport: (report: CanaryReport) => void) => () => void;

export interface CanaryOptions {
  client: GatewayClient;
  endpoint: string;
  /** The test message, its DeliveryReportUrl pointing at a receiver `reports` hears from. */
  test: TestMessage;
  deliveryReportUrl: string;
  reports: CanaryReports;
  /** How long to wait after acceptance for a final delivery report. */
  awaitMs: number;
  /** How the test message is sent again when the gateway surely did not process it. */
  retry?: CheckRetries;
  /** The gateway accepted the test message: waiting starts. */
  onAccepted?: (result: CheckResult, acceptedAfterMs: number) => void;
  /** An interim status arrived; waiting goes on. */
  onInterim?: (status: string, afterMs: number) => void;
}

/**
 * Sends the test message and waits for its final delivery report. `ok` is true only when the
 * gateway accepted it and a delivered status came within `awaitMs`; `reason` says why not.
 */
export async function runCanary(options: CanaryOptions): Promise<CanaryResult> {
  const { test } = options;
  const seen: { final?: { status: string; afterMs: number }; wake?: () => void } = {};
  const interim: string[] = [];
  const sentAt = systemClock.now();
  // Listening before sending: a fast gateway may report before its answer reaches us.
  const onReport = (report: CanaryReport) => {
    if (report.messageId !== test.messageId || report.status === undefined || seen.final) return;
    const afterMs = systemClock.now() - sentAt;
    if (isInterim(report.status)) {
      interim.push(report.status);
      options.onInterim?.(report.status, afterMs);
      return;
    }
    seen.final = { status: report.status, afterMs };
    seen.wake?.();
  };
  const stop = options.reports(onReport);
  try {
    const check: CanaryResult = await checkGateway(
      options.client,
      options.endpoint,
      test,
      options.retry,
    );
    const acceptedAfterMs = systemClock.now() - sentAt;
    if (!check.ok) return check;
    options.onAccepted?.(check, acceptedAfterMs);
    if (!seen.final) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, options.awaitMs);
        seen.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
    const final = seen.final;
    const delivered = isDelivered(final?.status);
    check.delivery = {
      ...(final ? { status: final.status } : {}),
      delivered,
      sentAt: new Date(sentAt).toISOString(),
      acceptedAfterMs,
      ...(final ? { reportAfterMs: final.afterMs } : {}),
      awaitMs: options.awaitMs,
      deliveryReportUrl: options.deliveryReportUrl,
      interim,
    };
    if (!delivered) {
      check.ok = false;
      check.reason = final
        ? `the test message was not delivered: ${final.status}`
        : `no delivery report for ${test.messageId} within ${seconds(options.awaitMs)}`;
    }
    return check;
  } finally {
    stop();
  }
}

/** 60000 → "60 s", 1500 → "1500 ms": as the duration was most likely written. */
function seconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}
