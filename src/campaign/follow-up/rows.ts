// Which rows of an original report a follow-up re-sends, and which earlier follow-ups re-sent already.
import { BARE_PROGRAM, commandText, type Program } from '../../shared/shell.js';
import { isUndelivered } from '../../report/delivery-status.js';
import { UsageError } from '../../shared/errors.js';
import { type CampaignShape } from '../../journal/identity.js';
import type { CampaignStore } from '../../journal/store.js';
import type { BuiltRecord, CampaignReader } from '../../validate/types.js';
import { generateMessageId } from '../../message/message-id.js';
import { readableFormat } from '../../report/format.js';
import { readReport, type RowOverlay } from '../../report/read.js';
import type { Include } from './types.js';
import { INCLUDES } from './types.js';
import type { RetryReason } from './types.js';
import type { RetrySelection } from './types.js';
import type { RetryRequest } from './types.js';

/**
 * Why a report row is re-sent, or undefined: failed and rejected always; unknown and undelivered
 * (accepted, with a final failure as its delivery status) only when included. A row a delivery
 * report confirmed is accepted, so it is never re-sent as unknown. A failed or rejected row the
 * campaign it follows up left unknown (`heldBefore`) is an unknown one: the gateway may hold its
 * message from then.
 */
export function retryReason(
  row: Readonly<Record<string, unknown>>,
  include: readonly Include[],
  heldBefore = false,
): { reason: RetryReason; chosen: boolean } | undefined {
  const outcome = row['outcome'];
  if (outcome === 'failed' || outcome === 'rejected') {
    if (heldBefore) return { reason: 'unknown', chosen: include.includes('unknown') };
    return { reason: outcome, chosen: true };
  }
  if (outcome === 'unknown') return { reason: 'unknown', chosen: include.includes('unknown') };
  const delivery = row['deliveryStatus'];
  if (outcome === 'accepted' && typeof delivery === 'string' && isUndelivered(delivery)) {
    return { reason: 'undelivered', chosen: include.includes('undelivered') };
  }
  return undefined;
}

/** How the rows are chosen besides the report and `--include`. */
export interface ChoiceOptions {
  /** Count only these rows, each by why it was chosen (a follow-up resumed with its rows). */
  only?: ReadonlySet<number>;
  /** The delivery reports the store keeps, over the rows: a row one confirmed is accepted. */
  overlay?: RowOverlay;
  /** Rows the campaigns this one follows up left unknown (held-before.ts). */
  heldBefore?: ReadonlySet<number>;
}

/** The rows of the report to re-send (row → MessageId), and the counts by why. */
export async function chooseRows(
  report: string,
  include: readonly Include[],
  { only, overlay, heldBefore }: ChoiceOptions = {},
): Promise<{
  rows: Map<number, string>;
  chosenIn: Omit<RetrySelection, 'alreadyRetried' | 'earlierFollowUps'>;
}> {
  readableFormat(report);
  const rows = new Map<number, string>();
  const chosen: Record<RetryReason, number> = {
    failed: 0,
    rejected: 0,
    unknown: 0,
    undelivered: 0,
  };
  const left: Record<Include, number> = { unknown: 0, undelivered: 0 };
  for await (const read of readReport(report)) {
    const entry = overlay && read.kind === 'row' ? { ...read, values: overlay(read.values) } : read;
    if (entry.kind === 'header') continue;
    if (entry.kind === 'unreadable') {
      throw new UsageError(
        `${report}:${entry.line}: not a readable report row; a follow-up cannot tell what it holds. Nothing was sent.`,
        'not-a-report',
      );
    }
    const held = heldBefore?.has(Number(entry.values['row'])) === true;
    if (only) {
      const why = retryReason(entry.values, INCLUDES, held);
      if (only.has(Number(entry.values['row'])) && why) chosen[why.reason]++;
      continue;
    }
    const why = retryReason(entry.values, include, held);
    if (!why) continue;
    if (!why.chosen) {
      left[why.reason as Include]++;
      continue;
    }
    const row = Number(entry.values['row']);
    const messageId = entry.values['messageId'];
    if (!Number.isSafeInteger(row) || row < 1 || typeof messageId !== 'string' || rows.has(row)) {
      throw new UsageError(
        `${report}:${entry.line}: no row number and MessageId of its own; a follow-up cannot match it to its record. Nothing was sent.`,
        'not-a-report',
      );
    }
    rows.set(row, messageId);
    chosen[why.reason]++;
  }
  return { rows, chosenIn: { chosen, left } };
}

/** The other follow-ups of a campaign to the same kind of target, and the rows they re-sent. */
export async function earlierFollowUps(
  request: RetryRequest,
  of: string,
  self: string | undefined,
  target: CampaignShape['target'],
): Promise<{ ids: string[]; rows: Set<number> }> {
  const { store, program } = request;
  const resent = await rowsResent(store, of, target, { except: self, program });
  return { ids: [...new Set(resent.values())], rows: new Set(resent.keys()) };
}

/**
 * The rows of campaign `of` that its follow-ups (to the same kind of target) have re-sent, each
 * with the follow-up's ID: no record is sent by two of them, nor by the original again. A
 * follow-up that is not finished is refused: its rows are not all known yet.
 */
export async function rowsResent(
  store: CampaignStore,
  of: string,
  target: CampaignShape['target'],
  options: { except?: string; program?: Program } = {},
): Promise<Map<number, string>> {
  const { except, program = BARE_PROGRAM } = options;
  const rows = new Map<number, string>();
  for (const entry of await store.campaigns()) {
    const { manifest } = entry;
    if (manifest.followUp?.of !== of || manifest.id === except) continue;
    if ((manifest.target === 'simulator') !== (target === 'simulator')) continue;
    if (entry.status !== 'finished') {
      throw new UsageError(
        `campaign ${of} has a follow-up, ${manifest.id}, that is ${entry.status}: finish it first ` +
          `(${commandText(program, ['retry', of, '--resume'])}, with the same --include), so no record is re-sent twice. Nothing was sent.`,
        'unfinished',
      );
    }
    const report = manifest.reports.at(-1);
    if (report === undefined) continue;
    for await (const row of readReport(report)) {
      if (row.kind === 'row') rows.set(Number(row.values['row']), manifest.id);
    }
  }
  return rows;
}

/** Only the chosen rows, each with a MessageId of the follow-up's own (from its identity). */
export function selectRows(
  reader: CampaignReader,
  rows: ReadonlyMap<number, string>,
  stem: string,
): CampaignReader {
  return {
    fileProblems: reader.fileProblems,
    fileWarnings: reader.fileWarnings,
    async *records() {
      for await (const batch of reader.records()) {
        // A follow-up is read on this thread (no worker parts), so every batch is built records.
        if (!Array.isArray(batch)) throw new Error('a follow-up is validated on one thread');
        const chosen: BuiltRecord[] = [];
        for (const item of batch) {
          const { record, built } = item;
          if (!rows.has(record.row)) continue;
          // A record suppressed since stays skipped: `skipped` goes along with it.
          if (!built.ok) chosen.push(item);
          else {
            const MessageId = generateMessageId(stem, record.row);
            chosen.push({ ...item, built: { ...built, message: { ...built.message, MessageId } } });
          }
        }
        if (chosen.length > 0) yield chosen;
      }
    },
  };
}
