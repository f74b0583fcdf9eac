// JUnit XML for CI dashboards: one testsuite per run, one testcase per record, failures with reasons.
import type { RowResult } from '../send/events.js';

const XML_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&apos;',
};

/** Escapes text for XML and drops characters XML 1.0 cannot carry at all. */
export function xmlEscape(text: string): string {
  return text
    .replace(/[^\t\n\r\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '')
    .replace(/[&<>"']/g, (ch) => XML_ESCAPES[ch]!);
}

export function junitCase(row: RowResult, suite: string): string {
  const name = xmlEscape(`row ${row.row} to ${row.to} (${row.messageId || 'no MessageId'})`);
  const open = `  <testcase classname="${xmlEscape(suite)}" name="${name}" time="0">`;
  if (row.outcome === 'accepted') {
    return `${open}<system-out>${xmlEscape(`TransactionId ${row.transactionId ?? ''}`)}</system-out></testcase>\n`;
  }
  const reason = [
    row.statusCode !== undefined ? `StatusCode ${row.statusCode}` : undefined,
    row.statusDescription,
    row.error,
  ]
    .filter(Boolean)
    .join(': ');
  if (row.outcome === 'skipped') {
    return `${open}<skipped message="${xmlEscape(reason || 'skipped')}"/></testcase>\n`;
  }
  return `${open}<failure type="${row.outcome}" message="${xmlEscape(`${row.outcome}: ${reason}`)}">${xmlEscape(reason)}</failure></testcase>\n`;
}

export interface SuiteCounts {
  tests: number;
  failures: number;
  skipped: number;
}

export function junitHead(suite: string, counts: SuiteCounts, timestamp: string): string {
  return (
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    `<testsuites name="sms-send" tests="${counts.tests}" failures="${counts.failures}" skipped="${counts.skipped}">\n` +
    `<testsuite name="${xmlEscape(suite)}" tests="${counts.tests}" failures="${counts.failures}" errors="0" skipped="${counts.skipped}" timestamp="${timestamp}">\n`
  );
}

export const JUNIT_TAIL = '</testsuite>\n</testsuites>\n';
