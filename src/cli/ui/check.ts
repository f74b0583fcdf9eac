// Renders the result of `sms-send check` as a string.
import type { ChalkInstance } from 'chalk';
import type { CheckResult } from '../../gateway/check.js';
import { formatCount } from './format.js';

export function renderCheck(result: CheckResult, c: ChalkInstance): string {
  const lines = [
    result.ok ? c.green.bold('✔ gateway check passed') : c.red.bold('✖ gateway check failed'),
    `  endpoint        ${result.endpoint}`,
    `  HTTP status     ${result.httpStatus ?? '-'}`,
    `  ProcessResult   ${result.processResult ?? '-'}${result.processResultDescription ? ` (${result.processResultDescription})` : ''}`,
    `  round trip      ${formatCount(result.roundTripMs)} ms`,
    `  TLS             ${result.tls ?? '-'}`,
  ];
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
