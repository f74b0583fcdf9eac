// `sms-send report FILE` (alias summary): counts a report's rows by outcome, StatusCode and delivery
// status, and with --fail-under holds their shares against thresholds (exit 1 when one is below).
import { ExitCode } from '../../shared/errors.js';
import { judgeGates, parseGates } from '../../report/gates.js';
import { summarizeReport } from '../../report/read.js';
import { colorFor } from '../ui/color.js';
import { renderReportCounts, reportCountsJson } from '../ui/dlr.js';
import { renderGates } from '../ui/gates.js';

export interface ReportFlags {
  json?: boolean;
  failUnder?: string;
}

export async function runReport(file: string, flags: ReportFlags): Promise<ExitCode> {
  // A malformed spec is refused before the report is read.
  const gates = flags.failUnder === undefined ? undefined : parseGates(flags.failUnder);
  const counts = await summarizeReport(file);
  const verdict = gates && judgeGates(counts, gates);
  const c = colorFor('stdout');
  if (flags.json) {
    const document = reportCountsJson(counts);
    if (verdict) document['failUnder'] = verdict;
    process.stdout.write(`${JSON.stringify(document)}\n`);
  } else {
    const text = renderReportCounts(counts, c);
    process.stdout.write(`${verdict ? `${text}\n${renderGates(verdict, c)}` : text}\n`);
  }
  return verdict && !verdict.passed ? ExitCode.notAllAccepted : ExitCode.ok;
}
