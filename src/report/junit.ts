// JUnit XML for CI dashboards: one testsuite per run, one testcase per record, failures with reasons.
// The shape follows the Jenkins JUnit schema (xunit-plugin/dtkit junit-4.xsd), the strictest one CI
// parsers follow: <skipped> carries its reason as text, and <testsuites> has no `skipped` count.
import type { RowResult } from '../message/outcome.js';

const XML_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&apos;',
  // A parser turns raw tab, LF and CR in an attribute into spaces (XML 1.0 §3.3.3), and CR in
  // text into LF (§2.11); character references survive both.
  '\t': '&#9;',
  '\n': '&#10;',
  '\r': '&#13;',
};

/** Characters XML 1.0 cannot carry at all, even as references: C0 controls, lone surrogates, FFFE/F. */
const NOT_XML = /[^\t\n\r\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

/**
 * Escapes text for an XML attribute value, usable in element text too. Characters XML cannot carry
 * become U+FFFD, as in the CSV and JSON reports, so the reader sees that something was there.
 */
export function xmlEscape(text: string): string {
  return text.replace(NOT_XML, '\uFFFD').replace(/[&<>"'\t\n\r]/g, (ch) => XML_ESCAPES[ch]!);
}

export function junitCase(row: RowResult, suite: string): string {
  const retryOf = row.originalMessageId ? `, re-sending ${row.originalMessageId}` : '';
  const name = xmlEscape(
    `row ${row.row} to ${row.to} (${row.messageId || 'no MessageId'}${retryOf})`,
  );
  const open = `  <testcase classname="${xmlEscape(suite)}" name="${name}" time="0">`;
  // The report's segments, encoding and normalized columns, as a line of the test's output.
  const text = textLine(row);
  if (row.outcome === 'accepted') {
    const out = [`TransactionId ${row.transactionId ?? ''}`, text].filter(Boolean).join('\n');
    return `${open}<system-out>${xmlEscape(out)}</system-out></testcase>\n`;
  }
  const out = text ? `<system-out>${xmlEscape(text)}</system-out>` : '';
  const reason = [
    row.statusCode !== undefined ? `StatusCode ${row.statusCode}` : undefined,
    row.statusDescription,
    row.error,
  ]
    .filter(Boolean)
    .join(': ');
  if (row.outcome === 'skipped') {
    return `${open}<skipped>${xmlEscape(reason || 'skipped')}</skipped>${out}</testcase>\n`;
  }
  return `${open}<failure type="${row.outcome}" message="${xmlEscape(`${row.outcome}: ${reason}`)}">${xmlEscape(reason)}</failure>${out}</testcase>\n`;
}

/** `segments 2 (UCS-2)`, `segments 1 (GSM-7), normalized 3`; undefined for a row without them. */
function textLine(row: RowResult): string | undefined {
  if (row.segments === undefined) return undefined;
  const encoding = row.encoding ? ` (${row.encoding})` : '';
  const normalized = row.normalized ? `, normalized ${row.normalized}` : '';
  return `segments ${row.segments}${encoding}${normalized}`;
}

export interface SuiteCounts {
  tests: number;
  failures: number;
  skipped: number;
}

export function junitHead(suite: string, counts: SuiteCounts, timestamp: string): string {
  return (
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    `<testsuites name="sms-send" tests="${counts.tests}" failures="${counts.failures}" errors="0">\n` +
    `<testsuite name="${xmlEscape(suite)}" tests="${counts.tests}" failures="${counts.failures}" errors="0" skipped="${counts.skipped}" timestamp="${timestamp}">\n`
  );
}

export const JUNIT_TAIL = '</testsuite>\n</testsuites>\n';
