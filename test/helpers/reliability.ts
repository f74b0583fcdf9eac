// Shared pieces of the reliability tests: synthetic entries, polling, and the checks
// behind the promise "every record reported exactly once, nothing accepted twice".
import { readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Entry } from '../../src/validate/entries.js';
import {
  findDuplicates,
  type LedgerEntry,
  type RequestOutcome,
  type RequestRecord,
} from '../../src/simulator/index.js';
import { mobile } from './files.js';

/** `count` sendable entries, rows 1..count, MessageIds `${prefix}-${row}` (≤ 32 characters). */
export function messageEntries(count: number, prefix: string, firstRow = 1): Entry[] {
  return Array.from({ length: count }, (_, i) => {
    const row = firstRow + i;
    const messageId = `${prefix}-${row}`;
    const to = mobile(row);
    return {
      kind: 'message' as const,
      row,
      to,
      messageId,
      json: JSON.stringify({
        Gateway: 99700999,
        DestinationAddress: Number(to),
        Price: 0,
        UserData: `Hello number ${row}`,
        MessageId: messageId,
      }),
    };
  });
}

/** An async stream over a list, as sendLoop() and runCampaign() consume: one item a chunk. */
export async function* streamOf<T>(items: Iterable<T>): AsyncGenerator<T[]> {
  for (const item of items) {
    await Promise.resolve();
    yield [item];
  }
}

/** Lets every pending promise continuation and I/O callback run. */
export function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * Polls `probe` until it returns something other than undefined/false; never a fixed sleep. The
 * deadline is generous because a loaded CI machine is slow, and it only matters when a test fails.
 */
export async function waitFor<T>(
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  what: string,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 15));
  }
}

/**
 * The journal of the one campaign in the test's state directory, or a path that does not exist
 * (yet) when no campaign has started: runs spawned by a test share its SMS_SEND_STATE_DIR.
 */
export function stateJournal(stateDir = process.env.SMS_SEND_STATE_DIR!): string {
  let names: string[] = [];
  try {
    names = readdirSync(join(stateDir, 'campaigns'));
  } catch {
    // No campaign has started yet.
  }
  return names.length === 1
    ? join(stateDir, 'campaigns', names[0]!, 'journal.ndjson')
    : join(stateDir, 'no-single-campaign');
}

/** Counts the complete `batch` and `result` lines of a journal being written (a torn tail is ignored). */
export async function journalCounts(path: string): Promise<{ send: number; done: number }> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch {
    return { send: 0, done: 0 };
  }
  let send = 0;
  let done = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith('{"t":"batch"') && line.endsWith('}')) send++;
    else if (line.startsWith('{"t":"result"') && line.endsWith('}')) done++;
  }
  return { send, done };
}

/** What the checks need of a report row: the CSV reader's strings or a RowResult. */
export interface ReportedRow {
  row?: number | string;
  messageId?: string;
  outcome?: string;
  transactionId?: string;
  statusCode?: number | string;
}

const NOT_TAKEN = new Set(['failed', 'rejected', 'invalid', 'skipped']);

/**
 * Every way a report and the gateway's ledger can break the promise, as readable sentences
 * (an empty list means none):
 * - each of rows 1..count reported exactly once, and no other row;
 * - no MessageId accepted twice by the gateway;
 * - an `accepted` row is in the ledger with the same TransactionId;
 * - a row the gateway took is never reported as not taken (failed, rejected, skipped, invalid);
 * - every message in the ledger belongs to a reported row.
 */
export function promiseBreaches(
  rows: readonly ReportedRow[],
  count: number,
  ledger: readonly LedgerEntry[],
): string[] {
  const problems: string[] = [];
  const times = new Map<number, number>();
  for (const row of rows) {
    const n = Number(row.row);
    if (!Number.isInteger(n) || n < 1 || n > count) problems.push(`unexpected row ${row.row}`);
    else times.set(n, (times.get(n) ?? 0) + 1);
  }
  for (let n = 1; n <= count; n++) {
    const seen = times.get(n) ?? 0;
    if (seen !== 1) problems.push(`row ${n} reported ${seen} times`);
  }
  for (const group of findDuplicates(ledger)) {
    problems.push(`MessageId ${group[0]!.messageId} accepted ${group.length} times by the gateway`);
  }
  const byId = new Map(ledger.map((entry) => [entry.messageId, entry]));
  const reported = new Set<string>();
  for (const row of rows) {
    const id = row.messageId ?? '';
    reported.add(id);
    const entry = byId.get(id);
    if (row.outcome === 'accepted') {
      if (!entry) problems.push(`row ${row.row} reported accepted but is not in the ledger`);
      else if (entry.transactionId !== row.transactionId) {
        problems.push(
          `row ${row.row}: TransactionId ${row.transactionId} in the report, ${entry.transactionId} in the ledger`,
        );
      }
    } else if (entry && NOT_TAKEN.has(row.outcome ?? '')) {
      problems.push(`row ${row.row} reported ${row.outcome} but the gateway accepted it`);
    }
  }
  for (const entry of ledger) {
    if (!reported.has(entry.messageId)) {
      problems.push(`ledger message ${entry.messageId} belongs to no reported row`);
    }
  }
  return problems.slice(0, 25);
}

/** Counts rows by outcome. */
export function countOutcomes(rows: readonly ReportedRow[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const row of rows) counts[row.outcome ?? ''] = (counts[row.outcome ?? ''] ?? 0) + 1;
  return counts;
}

/** Requests whose sender cannot know whether the gateway processed them. */
export const AMBIGUOUS: ReadonlySet<RequestOutcome> = new Set<RequestOutcome>([
  'reset-before',
  'reset-after',
  'hang',
  '500-after',
]);

/** Requests the gateway surely did not process and that sending again will not fix. */
export const REFUSED: ReadonlySet<RequestOutcome> = new Set<RequestOutcome>([
  'process-result-false',
  'max-batch',
  'auth',
]);

/**
 * What the report must say, derived from the simulator's own record of each request, when every
 * batch ends in exactly one final request (no --retry-unknown, retries never exhausted):
 * processed requests give accepted and rejected rows, ambiguous ones unknown rows, refused ones
 * failed rows; 503 and 429 give nothing, since those batches were sent again.
 */
export function expectedOutcomes(requests: readonly RequestRecord[]): Record<string, number> {
  const expected: Record<string, number> = {};
  const add = (outcome: string, n: number) => {
    if (n > 0) expected[outcome] = (expected[outcome] ?? 0) + n;
  };
  for (const request of requests) {
    if (request.outcome === 'ok') {
      add('accepted', request.accepted);
      add('rejected', request.messageCount - request.accepted);
    } else if (AMBIGUOUS.has(request.outcome)) add('unknown', request.messageCount);
    else if (REFUSED.has(request.outcome)) add('failed', request.messageCount);
    else if (request.outcome !== '503' && request.outcome !== '429') {
      add(`unexpected request outcome ${request.outcome}`, 1);
    }
  }
  return expected;
}
