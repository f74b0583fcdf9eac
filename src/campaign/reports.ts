// A report read back without a terminal: its counts, held against --fail-under, and the campaign's
// HTML page drawn from the same pass, so the page's totals are the counts printed.
import type { Program } from '../shared/shell.js';
import { campaignPage, findReport, looksLikeReportPath } from '../report/html/campaign-page.js';
import { judgeGates, type Gate, type GatesVerdict } from '../report/gates.js';
import { summarizeReport, type ReportCounts } from '../report/read.js';
import type { PricePerSegment } from '../message/cost.js';
import { isFile } from '../shared/files.js';
import { withState, type StoreSettings } from '../journal/open-store.js';
import type { CampaignEntry } from '../journal/store.js';
import { keptDeliveries } from '../dlr/overlay.js';

export interface ReportRequest {
  /** A report's path, or a campaign's ID (prefix) in the state directory. */
  what: string;
  /** `--fail-under`'s thresholds, parsed (and a malformed spec refused) before anything is read. */
  gates?: readonly Gate[];
  /** The state directory, once settings are known; a report's path alone needs none. */
  settings: () => Promise<ReportSettings>;
  /** Draw the campaign's page too. */
  page?: boolean;
  /** How the program is run (`npx sms-send` in a clone): the commands the page offers say so. */
  program?: Program;
}

export interface ReportSettings extends StoreSettings {
  pricePerSegment?: PricePerSegment;
  currency?: string;
  /** Which of the prices were given for this page, not taken from the campaign or the config. */
  given: { pricePerSegment: boolean; currency: boolean };
}

export interface ReportReading {
  counts: ReportCounts;
  verdict?: GatesVerdict;
  /** The page's HTML, when asked for. */
  html?: string;
}

/** Counts a report (and draws its page), and holds the counts against the gates given. */
export async function readReportCounts(request: ReportRequest): Promise<ReportReading> {
  const { counts, html } = await countsFor(request);
  const verdict = request.gates && judgeGates(counts, request.gates);
  return { counts, ...(verdict ? { verdict } : {}), ...(html === undefined ? {} : { html }) };
}

async function countsFor(request: ReportRequest): Promise<{ counts: ReportCounts; html?: string }> {
  const { what } = request;
  if (!request.page && ((await isFile(what)) || looksLikeReportPath(what))) {
    return { counts: await summarizeReport(what) };
  }
  const settings = await request.settings();
  return withState(settings, async (state) => {
    const overlay = (entry: CampaignEntry) => keptDeliveries(state.store, entry.manifest.id);
    if (!request.page) {
      const { report, entry } = await findReport(what, state.store);
      return { counts: await summarizeReport(report, undefined, entry && (await overlay(entry))) };
    }
    const page = await campaignPage({
      what,
      state,
      overlay,
      program: request.program,
      ...settings,
    });
    return { counts: page.data.counts, html: page.html };
  });
}
