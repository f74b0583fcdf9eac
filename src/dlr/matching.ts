// Delivery reports as values: parameters → report, timestamps, and which report for a MessageId wins.
import { PROOF_PARAM } from '../shared/dlr-proof.js';
import { parseCompactTimestamp } from '../shared/timestamp.js';

/** The report columns a delivery report fills in. */
export const DLR_COLUMNS = ['deliveryStatus', 'deliveredAt'] as const;

/** The statusDescription of an `unknown` row a delivery report turned `accepted`. */
export const CONFIRMED_BY_DLR = 'confirmed by delivery report';

/** One delivery report as received (GET query, POST JSON or form), or read back from a log. */
export interface DeliveryReport {
  messageId: string;
  /** As the gateway sent it (values are unpublished: DELIVRD, delivered, …); absent if it sent none. */
  status: string | undefined;
  /** As the gateway sent it; absent if it sent none. */
  timestamp: string | undefined;
  transactionId: string | undefined;
  /** When the receiver got it (ISO 8601). */
  receivedAt: string;
  /** The proof sms-send put in its DeliveryReportUrl (`smsig`), when the report carries one. */
  proof?: string;
}

export type ParsedReport = { ok: true; report: DeliveryReport } | { ok: false; reason: string };

/** Parameter names, compared case-insensitively. */
const MESSAGE_ID = new Set(['msgid', 'messageid']);
const STATUS = new Set(['status']);
const TIMESTAMP = new Set(['timestamp']);
const TRANSACTION_ID = new Set(['transactionid']);
const PROOF = new Set([PROOF_PARAM]);

function scalar(value: unknown): string | undefined {
  if (typeof value === 'string') {
    const trimmed = value.trim();
    return trimmed === '' ? undefined : trimmed;
  }
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return undefined;
}

function pick(params: Readonly<Record<string, unknown>>, names: Set<string>): string | undefined {
  for (const [key, value] of Object.entries(params)) {
    if (!names.has(key.toLowerCase())) continue;
    const found = scalar(value);
    if (found !== undefined) return found;
  }
  return undefined;
}

export const NO_MESSAGE_ID = 'no message id (msgid or MessageId)';

/**
 * Reads a report from its parameters: msgid / MessageId (any case), status, timestamp and
 * TransactionId. Only the message id is required: the vendor says any parameter may be absent,
 * but a report that names no message cannot be matched to anything.
 */
export function reportFromParams(
  params: Readonly<Record<string, unknown>>,
  receivedAt: string,
): ParsedReport {
  const messageId = pick(params, MESSAGE_ID);
  if (messageId === undefined) return { ok: false, reason: NO_MESSAGE_ID };
  const report: DeliveryReport = {
    messageId,
    status: pick(params, STATUS),
    timestamp: pick(params, TIMESTAMP),
    transactionId: pick(params, TRANSACTION_ID),
    receivedAt,
  };
  const proof = proofOf(params);
  if (proof !== undefined) report.proof = proof;
  return { ok: true, report };
}

/** The proof parameter (`smsig`, any case) among a report's parameters. */
export function proofOf(params: Readonly<Record<string, unknown>>): string | undefined {
  return pick(params, PROOF);
}

/**
 * Milliseconds since the epoch, or undefined. The gateway's format is unpublished, so this reads
 * only what is unambiguous: yyyymmddhhmmss (UTC: the simulator's format, and ValidationPeriod's
 * shape) and ISO 8601 (a date-time without a zone is local time). Ten digits could be epoch
 * seconds or SMPP's yymmddhhmm, so bare numbers are not guessed at; such a report keeps its raw
 * timestamp and is ordered by arrival.
 */
export function parseTimestamp(raw: string): number | undefined {
  const text = raw.trim();
  if (/^\d{14}$/.test(text)) return parseCompactTimestamp(text);
  if (/^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}/.test(text)) {
    const ms = Date.parse(text.replace(' ', 'T'));
    return Number.isNaN(ms) ? undefined : ms;
  }
  return undefined;
}

/** ISO 8601 in UTC, without milliseconds when there are none. */
export function formatInstant(ms: number): string {
  return new Date(ms).toISOString().replace('.000Z', 'Z');
}

/** What the report records for a MessageId, and what decides whether a later report replaces it. */
export interface Delivery {
  status: string;
  /** The deliveredAt cell: the report's time in ISO 8601, its raw timestamp, or when it was received. */
  at: string;
  /** The report's own time, when it had a timestamp that could be read. */
  time: number | undefined;
  /** Arrival order; 0 for what a report row already holds. */
  order: number;
}

/** Later wins: by the reports' own timestamps when both have one (and they differ), else by order. */
export function supersedes(candidate: Delivery, current: Delivery): boolean {
  if (candidate.time !== undefined && current.time !== undefined && candidate.time !== current.time)
    return candidate.time > current.time;
  return candidate.order > current.order;
}

/** The delivery a report row already records, read back so a later fold can respect it. */
export function deliveryOfRow(row: Readonly<Record<string, unknown>>): Delivery | undefined {
  const status = scalar(row['deliveryStatus']);
  if (status === undefined) return undefined;
  const at = scalar(row['deliveredAt']) ?? '';
  return { status, at, time: at === '' ? undefined : parseTimestamp(at), order: 0 };
}

/** A report row's MessageId. */
export function messageIdOfRow(row: Readonly<Record<string, unknown>>): string | undefined {
  return scalar(row['messageId']);
}

/** The winning delivery per MessageId, from reports in the order they arrived. */
export class DeliveryBook {
  private readonly byId = new Map<string, Delivery>();
  private order = 0;

  /**
   * Takes a report into account; returns false when it carries no status (it is still logged
   * and counted by the caller, but there is nothing to record).
   */
  add(report: DeliveryReport): boolean {
    if (report.status === undefined) return false;
    const time = report.timestamp === undefined ? undefined : parseTimestamp(report.timestamp);
    const received = Date.parse(report.receivedAt);
    const at =
      time !== undefined
        ? formatInstant(time)
        : (report.timestamp ??
          (Number.isNaN(received) ? report.receivedAt : formatInstant(received)));
    const candidate: Delivery = { status: report.status, at, time, order: ++this.order };
    const current = this.byId.get(report.messageId);
    if (!current || supersedes(candidate, current)) this.byId.set(report.messageId, candidate);
    return true;
  }

  /** Takes a delivery a report row already records (read back from an earlier report). */
  keep(messageId: string, delivery: Delivery): void {
    const current = this.byId.get(messageId);
    if (!current || supersedes(delivery, current)) this.byId.set(messageId, delivery);
  }

  get(messageId: string): Delivery | undefined {
    return this.byId.get(messageId);
  }

  get size(): number {
    return this.byId.size;
  }

  ids(): IterableIterator<string> {
    return this.byId.keys();
  }
}
