// Everything the HTML page shows, added up in the one pass that counts the report for `report
// --json`, so the page's totals are that document's (docs/report.md#the-html-page).
import { callingCode, priceFor, roundMoney, type PricePerSegment } from '../../message/cost.js';
import { isDelivered, isUndelivered, mayBeHeld } from '../delivery-status.js';
import { summarizeReport, type ReportCounts, type RowOverlay } from '../read.js';
import { wasToSend } from '../summary.js';
import { maskRecipient, maskRecipientIn } from './mask.js';
import { deliveryTimes, hasMilliseconds, type DeliveryTimes } from './delivery-times.js';
import { withOpenCounts, type FollowUpFacts, type FollowUps } from './follow-ups.js';
import type { Timeline } from './timeline.js';

/** Rows that need attention the page lists; the rest are counted. */
export const ATTENTION_LIMIT = 1000;
/** The costliest messages per recipient the page lists. */
const COSTLIEST_LIMIT = 10;

/** The campaign as its state remembers it (absent for a report no campaign in the state wrote). */
export interface CampaignFacts {
  id: string;
  inputs: string[];
  createdAt: string;
  startedAt: string;
  finishedAt?: string;
  status: string;
  /** "simulator" or the endpoint. */
  target: string;
  /** The Gateway field the messages carried. */
  gateway?: string;
  runs: number;
  /** A follow-up campaign: the campaign whose records it re-sends. */
  followUpOf?: string;
  /** Every run went to a simulator: nothing reached a phone. */
  rehearsal?: boolean;
  /** Its messages carried the configured DeliveryReportUrl (`--dlr-url`, `deliveryReportUrl`). */
  deliveryReportUrl?: boolean;
}

export interface AttentionRow {
  row: number;
  /** The follow-up whose outcome this is: the one that re-sent the row last. */
  via?: string;
  /** Masked as docs/report.md#the-html-page says. */
  to: string;
  outcome: string;
  statusCode: string;
  description: string;
  deliveryStatus: string;
}

export interface CostlyRow {
  row: number;
  to: string;
  segments: number;
  encoding: string;
  /** With a price per segment. */
  cost?: number;
}

export interface CountryCount {
  /** The calling code (`47`). */
  code: string;
  rejected: number;
  failed: number;
  unknown: number;
}

export interface PageData {
  /** Exactly what `sms-send report --json` prints as `report`. */
  counts: ReportCounts;
  campaign?: CampaignFacts;
  timeline?: Timeline;
  funnel: {
    sent: number;
    accepted: number;
    delivered: number;
    undelivered: number;
    expired: number;
    pending: number;
    awaiting: number;
  };
  deliveryTimes: DeliveryTimes;
  byCountry: CountryCount[];
  segments: {
    /** The messages that were to be sent (as the dry run counts them), by encoding. */
    byEncoding: Record<string, { messages: number; segments: number; acceptedSegments: number }>;
    /** The report has the segments column, though no row of it was to be sent. */
    noneToSend?: boolean;
    /** Estimated cost of the accepted rows' segments, with a price per segment. */
    cost?: number;
    currency?: string;
    /** The prices it was estimated with, and where they came from. */
    pricing?: { pricePerSegment: PricePerSegment; source: PriceSource };
  };
  costliest: CostlyRow[];
  attention: { rows: AttentionRow[]; total: number };
  /** The campaign's follow-ups, when the state knows of any. */
  followUps?: FollowUpSummary;
  /** Each StatusCode's first description, its row's recipient masked in it as in the row's. */
  statusDescriptions: ReadonlyMap<string, string>;
}

/** What the campaign's follow-ups did, and what of its own rows no follow-up has re-sent. */
export interface FollowUpSummary {
  list: FollowUpFacts[];
  /** Rows needing attention in this report that a follow-up re-sent and got accepted. */
  settled: number;
  /** This report's rows no follow-up re-sent: failed or rejected, unknown, undelivered. */
  notResent: { failedOrRejected: number; unknown: number; undelivered: number };
  /** A follow-up is unfinished or its report unreadable: what is open is not known here. */
  uncertain: boolean;
}

/** Where the page's prices came from: the command's flags, the campaign's send, the settings. */
export type PriceSource = 'given' | 'campaign' | 'settings';

export interface PricingOptions {
  pricePerSegment?: PricePerSegment;
  priceSource?: PriceSource;
  currency?: string;
}

export interface PageOptions extends PricingOptions {
  campaign?: CampaignFacts;
  timeline?: Timeline;
  followUps?: FollowUps;
  /** Delivery reports kept beside the report (a database's), laid over its rows. */
  overlay?: RowOverlay;
}

function cell(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  return '';
}

/** Why a row needs attention, or undefined: not accepted, or accepted and not delivered. */
function needsAttention(outcome: string, delivery: string): boolean {
  if (outcome === 'accepted') return delivery !== '' && isUndelivered(delivery);
  return (
    outcome === 'rejected' || outcome === 'failed' || outcome === 'unknown' || outcome === 'invalid'
  );
}

/** Reads the report once and returns the page's figures. */
export async function collectPage(path: string, options: PageOptions = {}): Promise<PageData> {
  const tally = new PageTally(options);
  const counts = await summarizeReport(path, (values) => tally.add(values), options.overlay);
  return tally.page(counts, options);
}

/** The page's figures beside the counts, row by row. */
class PageTally {
  readonly funnel: PageData['funnel'] = {
    sent: 0,
    accepted: 0,
    delivered: 0,
    undelivered: 0,
    expired: 0,
    pending: 0,
    awaiting: 0,
  };
  readonly byCountry = new Map<string, CountryCount>();
  readonly byEncoding: PageData['segments']['byEncoding'] = {};
  readonly attention: AttentionRow[] = [];
  attentionTotal = 0;
  readonly statusDescriptions = new Map<string, string>();
  settled = 0;
  /** Rows of this report whose message the gateway may hold (for the follow-ups' counts). */
  readonly heldHere = new Set<number>();
  readonly notResent = { failedOrRejected: 0, unknown: 0, undelivered: 0 };
  cost: number | undefined;
  /** Some row has its text's segments and encoding. */
  textColumns = false;
  costliest: CostlyRow[] = [];
  /** Pairs: row, deliveredAt (ms). */
  readonly delivered: number[] = [];
  /** Some deliveredAt held whole seconds only: times to delivery are known to the second. */
  toTheSecond = false;

  constructor(private readonly options: PageOptions) {
    this.cost = options.pricePerSegment === undefined ? undefined : 0;
  }

  add(values: Readonly<Record<string, unknown>>): void {
    const outcome = cell(values['outcome']);
    const delivery = cell(values['deliveryStatus']);
    const to = cell(values['to']);
    const row = Number(values['row']);
    const code = cell(values['statusCode']);
    if (code !== '' && !this.statusDescriptions.has(code)) {
      this.statusDescriptions.set(code, maskRecipientIn(cell(values['statusDescription']), to));
    }
    if (outcome === 'accepted') this.addDelivery(row, delivery, cell(values['deliveredAt']));
    if (outcome === 'rejected' || outcome === 'failed' || outcome === 'unknown') {
      const code = /^\d+$/.test(to) ? callingCode(to) : '?';
      let entry = this.byCountry.get(code);
      if (!entry) this.byCountry.set(code, (entry = { code, rejected: 0, failed: 0, unknown: 0 }));
      entry[outcome]++;
    }
    // Invalid records and those left out on purpose were never to be sent: they have no segments.
    const encoding = cell(values['encoding']);
    if (encoding !== '') this.textColumns = true;
    if (wasToSend(outcome, cell(values['error']))) {
      this.addSegments(row, to, outcome, Number(values['segments']), encoding);
    }
    if (mayBeHeld(values) && this.openInFollowUp(row)) this.heldHere.add(row);
    if (needsAttention(outcome, delivery) && !this.settledElsewhere(row, outcome, delivery)) {
      this.attentionTotal++;
      // A report is written in the order answers came: the page lists the lowest rows, in order.
      if (this.attention.length >= 2 * ATTENTION_LIMIT) this.keepLowestRows();
      this.attention.push(this.attentionRow(row, to, values));
    }
  }

  /** Whether a follow-up failed to re-send the row, and none re-sent it since. */
  private openInFollowUp(row: number): boolean {
    const open = this.options.followUps?.openRows;
    if (!open) return false;
    for (const rows of open.values()) if (rows.failed.has(row)) return true;
    return false;
  }

  /** The row as it stands: the outcome of the follow-up that re-sent it last, if one did. */
  private attentionRow(
    row: number,
    to: string,
    values: Readonly<Record<string, unknown>>,
  ): AttentionRow {
    const latest = this.options.followUps?.latest.get(row);
    if (latest) {
      const { id, outcome, statusCode, description, deliveryStatus } = latest;
      const masked = maskRecipientIn(description, to);
      return {
        row,
        via: id,
        to: maskRecipient(to),
        outcome,
        statusCode,
        description: masked,
        deliveryStatus,
      };
    }
    return {
      row,
      to: maskRecipient(to),
      outcome: cell(values['outcome']),
      statusCode: cell(values['statusCode']),
      description: maskRecipientIn(cell(values['statusDescription']) || cell(values['error']), to),
      deliveryStatus: cell(values['deliveryStatus']),
    };
  }

  /**
   * A row a follow-up re-sent and got accepted is settled there; one no follow-up re-sent is
   * counted by what a retry of this campaign would take.
   */
  private settledElsewhere(row: number, outcome: string, delivery: string): boolean {
    const followUps = this.options.followUps;
    if (!followUps) return false;
    if (followUps.settled.has(row)) {
      this.settled++;
      return true;
    }
    if (!followUps.resent.has(row)) {
      if (outcome === 'failed' || outcome === 'rejected') this.notResent.failedOrRejected++;
      else if (outcome === 'unknown') this.notResent.unknown++;
      else if (outcome === 'accepted' && isUndelivered(delivery)) this.notResent.undelivered++;
    }
    return false;
  }

  private addDelivery(row: number, delivery: string, deliveredAt: string): void {
    const funnel = this.funnel;
    funnel.accepted++;
    if (delivery === '') funnel.awaiting++;
    else if (isDelivered(delivery)) {
      funnel.delivered++;
      const at = Date.parse(deliveredAt);
      if (Number.isFinite(row) && Number.isFinite(at)) {
        this.delivered.push(row, at);
        if (!hasMilliseconds(deliveredAt)) this.toTheSecond = true;
      }
    } else if (/^expire/i.test(delivery.trim())) funnel.expired++;
    else if (isUndelivered(delivery)) funnel.undelivered++;
    else funnel.pending++;
  }

  private addSegments(
    row: number,
    to: string,
    outcome: string,
    segments: number,
    encoding: string,
  ) {
    if (encoding === '' || !Number.isFinite(segments)) return;
    const e = (this.byEncoding[encoding] ??= { messages: 0, segments: 0, acceptedSegments: 0 });
    e.messages++;
    e.segments += segments;
    if (outcome !== 'accepted') return;
    e.acceptedSegments += segments;
    const pricing = this.options.pricePerSegment;
    const price =
      pricing === undefined
        ? undefined
        : priceFor(pricing, /^\d+$/.test(to) ? callingCode(to) : '');
    if (this.cost !== undefined && price !== undefined) this.cost += segments * price;
    this.costliest = keepCostliest(this.costliest, {
      row,
      to,
      segments,
      encoding,
      ...(price === undefined ? {} : { cost: roundMoney(segments * price) }),
    });
  }

  private keepLowestRows(): void {
    this.attention.sort((a, b) => a.row - b.row);
    this.attention.length = Math.min(this.attention.length, ATTENTION_LIMIT);
  }

  page(counts: ReportCounts, options: PageOptions): PageData {
    this.keepLowestRows();
    const total = (c: CountryCount) => c.rejected + c.failed + c.unknown;
    return {
      counts,
      ...(options.campaign ? { campaign: options.campaign } : {}),
      ...(options.timeline ? { timeline: options.timeline } : {}),
      // The steps report --json has are taken from it; the rest are counted beside it.
      funnel: {
        ...this.funnel,
        sent: counts.byOutcome.accepted + counts.byOutcome.rejected + counts.byOutcome.unknown,
        accepted: counts.byOutcome.accepted,
        delivered: counts.delivered,
        awaiting: counts.awaitingDeliveryReport,
      },
      deliveryTimes: deliveryTimes(this.delivered, options.timeline, this.toTheSecond ? 1000 : 1),
      byCountry: [...this.byCountry.values()].sort(
        (a, b) => total(b) - total(a) || a.code.localeCompare(b.code),
      ),
      segments: {
        byEncoding: this.byEncoding,
        ...(this.textColumns && Object.keys(this.byEncoding).length === 0
          ? { noneToSend: true }
          : {}),
        ...(this.cost === undefined ? {} : { cost: roundMoney(this.cost) }),
        ...(options.currency === undefined ? {} : { currency: options.currency }),
        ...(options.pricePerSegment === undefined
          ? {}
          : {
              pricing: {
                pricePerSegment: options.pricePerSegment,
                source: options.priceSource ?? 'settings',
              },
            }),
      },
      costliest: this.costliest.map((r) => ({ ...r, to: maskRecipient(r.to) })),
      attention: { rows: this.attention, total: this.attentionTotal },
      statusDescriptions: this.statusDescriptions,
      ...(options.followUps && options.followUps.list.length > 0
        ? {
            followUps: {
              list: withOpenCounts(options.followUps, this.heldHere),
              settled: this.settled,
              notResent: this.notResent,
              uncertain: options.followUps.uncertain,
            },
          }
        : {}),
    };
  }
}

/** Costliest first (by cost when priced, else by segments), then by row. */
function costlier(a: CostlyRow, b: CostlyRow): number {
  return (b.cost ?? 0) - (a.cost ?? 0) || b.segments - a.segments || a.row - b.row;
}

/** The costliest rows so far; a short list, kept sorted. */
function keepCostliest(list: CostlyRow[], candidate: CostlyRow): CostlyRow[] {
  const last = list.at(-1);
  if (list.length >= COSTLIEST_LIMIT && last && costlier(last, candidate) <= 0) return list;
  list.push(candidate);
  list.sort(costlier);
  if (list.length > COSTLIEST_LIMIT) list.pop();
  return list;
}
