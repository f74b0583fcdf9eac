// The HTML page of a campaign or report: finds the report and the campaign's state (manifest,
// timeline), reads the report once, and renders the page (docs/report.md#the-html-page).
import { maskUserInfo } from '../shared/url.js';
import { resolve as resolvePath } from 'node:path';
import type { PricePerSegment } from '../message/cost.js';
import { findCampaign, listCampaigns, type CampaignEntry } from '../journal/state.js';
import { collectPage, type CampaignFacts, type PageData } from '../report/html/data.js';
import { renderPage } from '../report/html/page.js';
import { readTimeline } from '../report/html/timeline.js';
import { UsageError } from '../shared/errors.js';
import { isFile } from '../shared/files.js';

export interface PageRequest {
  /** A report's path, or a campaign's ID (or an unambiguous prefix). */
  what: string;
  stateDir: string;
  pricePerSegment?: PricePerSegment;
  currency?: string;
  /** How the program is run, for the follow-up commands the page names. */
  program?: string;
  now?: number;
}

/** A report and the campaign that wrote it, if the state directory knows it. */
export async function findReport(
  what: string,
  stateDir: string,
): Promise<{ report: string; entry?: CampaignEntry }> {
  if (await isFile(what)) {
    const path = resolvePath(what);
    const entry = (await listCampaigns(stateDir)).find((e) => e.manifest.reports.includes(path));
    return { report: what, entry };
  }
  // A path that is no file is a missing report, not a campaign to look for: the reader says so.
  if (looksLikeReportPath(what)) return { report: what };
  const entry = await findCampaign(stateDir, what);
  const report = entry.manifest.reports.at(-1);
  if (report === undefined || !(await isFile(report))) {
    throw new UsageError(
      `campaign ${entry.manifest.id}'s report ${report ?? '(none)'} does not exist`,
      'no-report',
    );
  }
  return { report, entry };
}

/** A path or a report's name (campaign IDs have neither a folder nor a report's extension). */
export function looksLikeReportPath(what: string): boolean {
  return /[/\\]/.test(what) || /\.(csv|json|ndjson|jsonl|xml)$/i.test(what);
}

/** What the page says of the campaign, from its manifest; credentials in an endpoint are masked. */
export function campaignFacts(entry: CampaignEntry): CampaignFacts {
  const m = entry.manifest;
  const gateway = (m.shape?.defaults as { Gateway?: unknown } | undefined)?.Gateway;
  return {
    id: m.id,
    inputs: m.inputs.map((i) => i.path),
    createdAt: m.createdAt,
    startedAt: m.startedAt,
    ...(m.finishedAt === undefined ? {} : { finishedAt: m.finishedAt }),
    status: entry.status,
    target: maskUserInfo(m.target),
    ...(typeof gateway === 'string' ? { gateway } : {}),
    runs: m.runs,
    ...(m.followUp ? { followUpOf: m.followUp.of } : {}),
  };
}

/** Reads the report and renders its page: the HTML, and the figures it shows. */
export async function campaignPage(
  request: PageRequest,
): Promise<{ html: string; data: PageData; report: string }> {
  const { report, entry } = await findReport(request.what, request.stateDir);
  const timeline = entry ? await readTimeline(entry.paths.dir) : undefined;
  const data = await collectPage(report, {
    ...(entry ? { campaign: campaignFacts(entry) } : {}),
    ...(timeline ? { timeline } : {}),
    ...(request.pricePerSegment === undefined ? {} : { pricePerSegment: request.pricePerSegment }),
    ...(request.currency === undefined ? {} : { currency: request.currency }),
  });
  const html = renderPage(data, {
    generatedAt: request.now ?? Date.now(),
    program: request.program ?? 'sms-send',
  });
  return { html, data, report };
}
