// The one reader of reports (csv, json, ndjson), used by `sms-send report` and the dlr fold, and the tally of one.
import type { FileHandle } from 'node:fs/promises';
import { isDelivered } from './delivery-status.js';
import { UsageError } from '../shared/errors.js';
import { openForReading } from '../shared/files.js';
import { FORMATS, formatOf, readableFormat, type ReadableFormat, type ReadRow } from './format.js';
import { OUTCOMES, type Outcome } from '../message/outcome.js';
import { Tally } from './summary.js';

/** Opens a report for reading; a missing or unreadable one is a usage error (exit 2). */
export async function openReportForReading(path: string): Promise<FileHandle> {
  return openForReading(path, 'report', 'no-report');
}

/** Every entry of an open report, in order, in the format its path names. */
export function readRows(source: FileHandle, path: string): AsyncGenerator<ReadRow> {
  return FORMATS[readableFormat(path)].read(source, path);
}

/** Every entry of a report in order; rows that cannot be read are reported, not skipped. */
export async function* readReport(path: string): AsyncGenerator<ReadRow> {
  readableFormat(path);
  const source = await openReportForReading(path);
  try {
    yield* readRows(source, path);
  } finally {
    await source.close();
  }
}

/** A report tallied: what `sms-send report` prints. */
export interface ReportCounts {
  path: string;
  format: ReadableFormat;
  /** Rows read (unreadable ones not included). */
  total: number;
  byOutcome: Record<Outcome, number>;
  /** Of the skipped rows, those whose recipient was on a suppression list. */
  suppressed: number;
  /** Of the skipped rows, those a campaign named with --skip-sent-by may have sent to. */
  sentBefore: number;
  /** StatusCode → count, with the first description seen for it. */
  byStatusCode: Record<string, { count: number; description: string }>;
  /** deliveryStatus → count, over the rows that have one. */
  byDeliveryStatus: Record<string, number>;
  /** Accepted rows whose delivery status says the message reached the phone (DELIVRD). */
  delivered: number;
  /** Accepted rows without a delivery status yet. */
  awaitingDeliveryReport: number;
  /** Rows whose outcome is none of the six (a report from something else, or edited). */
  otherOutcome: number;
  /** Lines that are not rows: torn by a crash, or corrupt. */
  unreadable: number;
}

function text(value: unknown): string | undefined {
  if (typeof value === 'string') return value === '' ? undefined : value;
  if (typeof value === 'number') return String(value);
  return undefined;
}

/** What a reader of the rows beside the count is handed: a row's cells as the report holds them. */
export type RowVisitor = (values: Readonly<Record<string, unknown>>) => void;

/**
 * A row as it is read, with what the file does not hold laid over it (the delivery reports a
 * store shared by hosts keeps): counted and visited as it would read once folded in.
 */
export type RowOverlay = (
  values: Readonly<Record<string, unknown>>,
) => Readonly<Record<string, unknown>>;

/**
 * Counts a report's rows by outcome, StatusCode and delivery status. `visit` sees each row in the
 * same pass, so whatever it adds up (the HTML page's figures) is of exactly the rows counted.
 */
export async function summarizeReport(
  path: string,
  visit?: RowVisitor,
  overlay?: RowOverlay,
): Promise<ReportCounts> {
  const tally = new Tally();
  const counts: ReportCounts = {
    path,
    format: readableFormat(path),
    total: 0,
    byOutcome: tally.byOutcome,
    suppressed: 0,
    sentBefore: 0,
    byStatusCode: tally.byStatusCode,
    byDeliveryStatus: {},
    delivered: 0,
    awaitingDeliveryReport: 0,
    otherOutcome: 0,
    unreadable: 0,
  };
  for await (const entry of readReport(path)) {
    if (entry.kind === 'header') {
      if (!entry.columns.includes('outcome')) throw notAReport(path, 'it has no outcome column');
      continue;
    }
    if (entry.kind === 'unreadable') {
      counts.unreadable++;
      continue;
    }
    counts.total++;
    const values = overlay ? overlay(entry.values) : entry.values;
    const outcome = text(values['outcome']);
    const code = text(values['statusCode']);
    if (outcome !== undefined && (OUTCOMES as readonly string[]).includes(outcome)) {
      tally.add({
        row: counts.total,
        to: '',
        messageId: '',
        attempts: 0,
        outcome: outcome as Outcome,
        statusCode: code === undefined || !Number.isFinite(Number(code)) ? undefined : Number(code),
        statusDescription: text(values['statusDescription']),
        error: text(values['error']),
      });
    } else counts.otherOutcome++;
    const delivery = text(values['deliveryStatus']);
    if (delivery !== undefined) {
      counts.byDeliveryStatus[delivery] = (counts.byDeliveryStatus[delivery] ?? 0) + 1;
      if (outcome === 'accepted' && isDelivered(delivery)) counts.delivered++;
    } else if (outcome === 'accepted') counts.awaitingDeliveryReport++;
    visit?.(values);
  }
  counts.suppressed = tally.suppressed;
  counts.sentBefore = tally.sentBefore;
  // A report edited by hand may have a few odd rows; one with no row sms-send could have written
  // is something else (the campaign's input, say).
  if (counts.total + counts.unreadable > 0 && counts.otherOutcome === counts.total) {
    throw notAReport(path, `no row has an outcome (${OUTCOMES.join(', ')})`);
  }
  return counts;
}

function notAReport(path: string, why: string): UsageError {
  return new UsageError(`${path} is not an sms-send report: ${why}`, 'not-a-report');
}

/**
 * Whether a file is one sms-send writes as a report (or empty): what --force may replace. Its
 * first entry decides: a CSV header or a row with an outcome column; a JUnit report its suites.
 */
export async function isReport(path: string): Promise<boolean> {
  try {
    if (formatOf(path) === 'junit') return /<testsuites?\b/.test(await readFirstBytes(path));
    for await (const entry of readReport(path)) {
      if (entry.kind === 'header') return entry.columns.includes('outcome');
      if (entry.kind === 'row') return OUTCOMES.includes(entry.values['outcome'] as Outcome);
      return false;
    }
    return true;
  } catch {
    return false;
  }
}

async function readFirstBytes(path: string): Promise<string> {
  const handle = await openReportForReading(path);
  try {
    const bytes = Buffer.alloc(4096);
    const { bytesRead } = await handle.read(bytes, 0, bytes.length, 0);
    return bytes.toString('utf8', 0, bytesRead);
  } finally {
    await handle.close();
  }
}
