// `sms-send report FILE` (alias summary): counts a report's rows by outcome, StatusCode and delivery status.
import { ExitCode } from '../../errors.js';
import { summarizeReport } from '../../report/read.js';
import { colorFor } from '../ui/color.js';
import { renderReportCounts, reportCountsJson } from '../ui/dlr.js';

export interface ReportFlags {
  json?: boolean;
}

export async function runReport(file: string, flags: ReportFlags): Promise<ExitCode> {
  const counts = await summarizeReport(file);
  process.stdout.write(
    flags.json
      ? `${JSON.stringify(reportCountsJson(counts))}\n`
      : `${renderReportCounts(counts, colorFor('stdout'))}\n`,
  );
  return ExitCode.ok;
}
