// `sms-send report FILE|CAMPAIGN` (alias summary): counts a report's rows by outcome, StatusCode and
// delivery status, with --fail-under holds their shares against thresholds (exit 1 when one is
// below), and with --html writes the campaign's page (docs/report.md#the-html-page).
import { BARE_PROGRAM, type Program } from '../../shared/shell.js';
import { reportCountsDocument } from '../../campaign/documents.js';
import { readReportCounts, type ReportSettings } from '../../campaign/reports.js';
import { parseGates } from '../../report/gates.js';
import { ExitCode, UsageError } from '../../shared/errors.js';
import { flagLayer, settingsFor, type GatewayFlags } from '../gateway-settings.js';
import { colorFor } from '../ui/color.js';
import { renderReportCounts } from '../ui/dlr.js';
import { renderGates } from '../ui/gates.js';
import { writePage } from '../../report/html/page-file.js';
import { writeCampaignReport } from '../../campaign/report-output.js';
import { renderReportWritten } from '../ui/dlr.js';

export interface ReportFlags extends GatewayFlags {
  json?: boolean;
  failUnder?: string;
  html?: string;
  output?: string;
}

export async function runReport(
  what: string,
  flags: ReportFlags,
  program: Program = BARE_PROGRAM,
): Promise<ExitCode> {
  // A malformed spec is refused first, before prices are judged or the report is read.
  const gates = flags.failUnder === undefined ? undefined : parseGates(flags.failUnder);
  refuseUnusedPrices(flags);
  const written =
    flags.output === undefined
      ? undefined
      : await writeCampaignReport({
          what,
          output: flags.output,
          settings: () => reportSettings(flags),
        });
  if (written && !flags.json) process.stderr.write(`${renderReportWritten(written)}\n`);
  const { counts, verdict, html } = await readReportCounts({
    // What was written out is what is counted (the campaign's own file may be on another host).
    what: written && !flags.html ? written.output : what,
    ...(gates === undefined ? {} : { gates }),
    page: flags.html !== undefined,
    program,
    settings: () => reportSettings(flags),
  });
  if (flags.html !== undefined && html !== undefined) {
    await writePage(flags.html, html);
    if (!flags.json) process.stderr.write(`page written: ${flags.html}\n`);
  }
  const c = colorFor('stdout');
  if (flags.json) {
    const document = reportCountsDocument(counts);
    if (verdict) document['failUnder'] = verdict;
    process.stdout.write(`${JSON.stringify(document)}\n`);
  } else {
    const text = renderReportCounts(counts, c);
    process.stdout.write(`${verdict ? `${text}\n${renderGates(verdict, c)}` : text}\n`);
  }
  return verdict && !verdict.passed ? ExitCode.notAllAccepted : ExitCode.ok;
}

/** Prices only price a page: without --html they would be silently ignored. */
function refuseUnusedPrices(flags: ReportFlags): void {
  if (flags.html !== undefined) return;
  const priced = [
    ...(flags['pricePerSegment'] === undefined ? [] : ['--price-per-segment']),
    ...(flags['currency'] === undefined ? [] : ['--currency']),
  ];
  if (priced.length > 0) {
    throw new UsageError(`${priced.join(' and ')} price the campaign's page: give --html FILE too`);
  }
}

async function reportSettings(flags: ReportFlags): Promise<ReportSettings> {
  const settings = await settingsFor(flags);
  const passed = flagLayer(flags);
  return {
    stateDir: settings.stateDir,
    ...(settings.stateUrl === undefined ? {} : { stateUrl: settings.stateUrl }),
    leaseMs: settings.leaseMs,
    ...(settings.pricePerSegment === undefined
      ? {}
      : { pricePerSegment: settings.pricePerSegment }),
    ...(settings.currency === undefined ? {} : { currency: settings.currency }),
    given: { pricePerSegment: 'pricePerSegment' in passed, currency: 'currency' in passed },
  };
}
