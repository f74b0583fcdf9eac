// The HTML page of a campaign or report: finds the report and the campaign's state (manifest,
// timeline), reads the report once, and renders the page (docs/report.md#the-html-page).
import { BARE_PROGRAM, type Program } from '../../shared/shell.js';
import { maskUserInfo } from '../../shared/url.js';
import { systemClock } from '../../shared/clock.js';
import { resolve as resolvePath } from 'node:path';
import type { PricePerSegment } from '../../message/cost.js';
import type { Pricing } from '../../journal/manifest.js';
import type { CampaignState } from '../../journal/open-store.js';
import type { CampaignEntry, CampaignStore } from '../../journal/store.js';
import {
  collectPage,
  type CampaignFacts,
  type PageData,
  type PriceSource,
  type PricingOptions,
} from './data.js';
import { followUpsOf } from './follow-ups.js';
import { renderPage } from './page.js';
import { timelineOf } from './timeline.js';
import { UsageError } from '../../shared/errors.js';
import type { RowOverlay } from '../read.js';
import { isFile } from '../../shared/files.js';
import { findCampaign } from '../../journal/lookup.js';

export interface PageRequest {
  /** A report's path, or a campaign's ID (or an unambiguous prefix). */
  what: string;
  /** Where the campaigns are: the page of a campaign's report shows the campaign. */
  /** The campaigns, and this host's cache (the runs' timeline). */
  state: CampaignState;
  /** The prices of the settings (flags, environment, config file). */
  pricePerSegment?: PricePerSegment;
  currency?: string;
  /** Which of them were given to this command: those override the campaign's own. */
  given?: { pricePerSegment?: boolean; currency?: boolean };
  /** How the program is run, for the follow-up commands the page names. */
  program?: Program;
  /** What the store keeps of the campaign beside its report (delivery reports), over its rows. */
  overlay?: (entry: CampaignEntry) => Promise<RowOverlay | undefined>;
  now?: number;
}

/** A report and the campaign that wrote it, if the state directory knows it. */
export async function findReport(
  what: string,
  store: CampaignStore,
): Promise<{ report: string; entry?: CampaignEntry }> {
  if (await isFile(what)) {
    const path = resolvePath(what);
    const entry = (await store.campaigns()).find((e) => e.manifest.reports.includes(path));
    return { report: what, entry };
  }
  // A path that is no file is a missing report, not a campaign to look for: the reader says so.
  if (looksLikeReportPath(what)) return { report: what };
  const entry = await findCampaign(store, what);
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
  const defaults = m.shape?.defaults as
    { Gateway?: unknown; DeliveryReportUrl?: unknown } | undefined;
  const gateway = defaults?.Gateway;
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
    ...(m.rehearsal ? { rehearsal: true } : {}),
    deliveryReportUrl: typeof defaults?.DeliveryReportUrl === 'string',
  };
}

/**
 * The prices the page estimates the cost with: those given to the command, else the ones the
 * campaign was sent with, else the settings' (a report no priced campaign wrote).
 */
export function pagePricing(request: PageRequest, campaign: Pricing | undefined): PricingOptions {
  const given = request.given ?? {};
  const price = given.pricePerSegment
    ? request.pricePerSegment
    : (campaign?.pricePerSegment ?? request.pricePerSegment);
  if (price === undefined) return {};
  const source: PriceSource = given.pricePerSegment
    ? 'given'
    : campaign === undefined
      ? 'settings'
      : 'campaign';
  const currency = given.currency ? request.currency : (campaign?.currency ?? request.currency);
  return {
    pricePerSegment: price,
    priceSource: source,
    ...(currency === undefined ? {} : { currency }),
  };
}

/** Reads the report and renders its page: the HTML, and the figures it shows. */
export async function campaignPage(
  request: PageRequest,
): Promise<{ html: string; data: PageData; report: string }> {
  const { store } = request.state;
  const { report, entry } = await findReport(request.what, store);
  const timeline = entry ? timelineOf(await store.runs(entry.manifest.id)) : undefined;
  const followUps = entry
    ? await followUpsOf(entry.manifest.id, entry.manifest.target, await store.campaigns())
    : undefined;
  const overlay = entry && (await request.overlay?.(entry));
  const data = await collectPage(report, {
    ...(overlay ? { overlay } : {}),
    ...(entry ? { campaign: campaignFacts(entry) } : {}),
    ...(timeline ? { timeline } : {}),
    ...(followUps ? { followUps } : {}),
    ...pagePricing(request, entry?.manifest.pricing),
  });
  const html = renderPage(data, {
    generatedAt: request.now ?? systemClock.now(),
    program: request.program ?? BARE_PROGRAM,
  });
  return { html, data, report };
}
