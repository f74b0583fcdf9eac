// Renders the result of `sms-send check` as a string, and the canary's steps one line each.
import type { ChalkInstance } from 'chalk';
import type { CanaryStart } from '../../campaign/check.js';
import type { CanaryResult } from '../../dlr/canary.js';
import type { CheckResult } from '../../gateway/check.js';
import { formatCount, formatDuration, formatLimit } from './format.js';

export function renderCheck(result: CheckResult, c: ChalkInstance): string {
  const lines = [
    result.ok ? c.green.bold('✔ gateway check passed') : c.red.bold('✖ gateway check failed'),
    `  endpoint        ${result.endpoint}`,
    `  HTTP status     ${result.httpStatus ?? '-'}`,
    `  ProcessResult   ${result.processResult ?? '-'}${result.processResultDescription ? ` (${result.processResultDescription})` : ''}`,
    `  round trip      ${formatCount(result.roundTripMs)} ms`,
    `  TLS             ${result.tls ?? '-'}`,
    `  proxy           ${result.proxy}`,
  ];
  if (result.retried) {
    lines.push(
      `  attempts        ${result.attempts}, sent again after ${result.retried.join(', ')}`,
    );
  }
  if (result.message) {
    const m = result.message;
    lines.push(
      `  test message    to ${m.to}: StatusCode ${m.statusCode ?? '-'} ${m.statusDescription ?? ''}`.trimEnd(),
      `  TransactionId   ${m.transactionId ?? '-'}`,
    );
  }
  if (!result.ok && result.reason) lines.push(c.red(`  reason          ${result.reason}`));
  return lines.join('\n');
}

/** `waiting for https://gw.example/ to answer (up to 30 s)`: what a check waits for, at most how long. */
export function renderCheckWaiting(endpoint: string, timeoutMs: number): string {
  return `waiting for ${endpoint} to answer (up to ${formatLimit(timeoutMs)})`;
}

/** The canary's first step: what it sends where, and where the report comes back to. */
export function renderCanaryStart(info: CanaryStart, c: ChalkInstance): string {
  const heard =
    info.keptIn !== undefined
      ? ` (kept by the fleet's receivers in ${info.keptIn})`
      : info.receiver === undefined || info.receiver === info.reportsTo
        ? ''
        : ` (received on ${info.receiver.replace(/^http:\/\//, '')})`;
  return `${c.dim('send')}      a test message to ${info.to} through ${info.endpoint}; delivery reports to ${info.reportsTo}${heard}`;
}

/** The gateway took the test message; the wait starts. */
export function renderCanaryAccepted(
  result: CheckResult,
  acceptedAfterMs: number,
  awaitMs: number,
  c: ChalkInstance,
): string {
  const m = result.message;
  return (
    `${c.dim('accepted')}  after ${formatDuration(acceptedAfterMs)}: MessageId ${m?.messageId ?? '-'}, ` +
    `TransactionId ${m?.transactionId ?? '-'}; waiting up to ${formatDuration(awaitMs)} for its delivery report`
  );
}

export function renderCanaryInterim(status: string, afterMs: number, c: ChalkInstance): string {
  return `${c.dim('report')}    ${status} after ${formatDuration(afterMs)} (on its way; still waiting)`;
}

/** The last step: the final status and the verdict, or that none came. */
export function renderCanaryEnd(result: CanaryResult, c: ChalkInstance): string {
  const d = result.delivery;
  if (d?.status === undefined) {
    return c.red.bold(
      `✖ no delivery report within ${formatDuration(d?.awaitMs ?? 0)} of acceptance`,
    );
  }
  const report = `${c.dim('report')}    ${d.status} after ${formatDuration(d.reportAfterMs ?? 0)}`;
  const verdict = d.delivered
    ? c.green.bold('✔ canary passed: the test message was delivered')
    : c.red.bold(`✖ canary failed: the test message was not delivered (${d.status})`);
  return `${report}\n${verdict}`;
}
