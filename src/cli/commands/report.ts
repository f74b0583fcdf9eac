// `sms-send report FILE|CAMPAIGN` (alias summary): counts a report's rows by outcome, StatusCode and
// delivery status, with --fail-under holds their shares against thresholds (exit 1 when one is
// below), and with --html writes the campaign's page (docs/report.md#the-html-page).
import { ExitCode, UsageError } from '../../shared/errors.js';
import { campaignPage, findReport, looksLikeReportPath } from '../../campaign/page.js';
import { judgeGates, parseGates } from '../../report/gates.js';
import { summarizeReport, type ReportCounts } from '../../report/read.js';
import { isFile } from '../../shared/files.js';
import { flagLayer, settingsFor, type GatewayFlags } from '../gateway-settings.js';
import { colorFor } from '../ui/color.js';
import { renderReportCounts, reportCountsJson } from '../ui/dlr.js';
import { renderGates } from '../ui/gates.js';
import { writePage } from '../page-file.js';

export interface ReportFlags extends GatewayFlags {
  json?: boolean;
  failUnder?: string;
  html?: string;
}

export async function runReport(what: string, flags: ReportFlags): Promise<ExitCode> {
  // A malformed spec is refused before the report is read.
  const gates = flags.failUnder === undefined ? undefined : parseGates(flags.failUnder);
  const counts = await countsFor(what, flags);
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

/**
 * The counts; with --html the page is written from the same pass, so its totals are these. A
 * report's path alone needs no settings; a campaign ID, or a page (its campaign, its cost), does.
 */
async function countsFor(what: string, flags: ReportFlags): Promise<ReportCounts> {
  if (flags.html === undefined) {
    const priced = [
      ...(flags['pricePerSegment'] === undefined ? [] : ['--price-per-segment']),
      ...(flags['currency'] === undefined ? [] : ['--currency']),
    ];
    if (priced.length > 0) {
      throw new UsageError(
        `${priced.join(' and ')} price the campaign's page: give --html FILE too`,
      );
    }
  }
  if (flags.html === undefined && ((await isFile(what)) || looksLikeReportPath(what))) {
    return summarizeReport(what);
  }
  const settings = await settingsFor(flags);
  if (flags.html === undefined) {
    return summarizeReport((await findReport(what, settings.stateDir)).report);
  }
  const passed = flagLayer(flags);
  const page = await campaignPage({
    what,
    stateDir: settings.stateDir,
    pricePerSegment: settings.pricePerSegment,
    currency: settings.currency,
    given: { pricePerSegment: 'pricePerSegment' in passed, currency: 'currency' in passed },
  });
  await writePage(flags.html, page.html);
  if (!flags.json) {
    process.stderr.write(`page written: ${flags.html}\n`);
  }
  return page.data.counts;
}
