// Builds each record in input order: rows, unique user MessageIds, --suppress, --dedupe and --limit.
import type { InputRecord } from '../input/types.js';
import { buildMessage, type BuildContext } from '../message/build.js';
import { analyzeText } from '../message/encoding.js';
import { planColumns, type ColumnPlan } from '../message/columns.js';
import { holds, sentByReason, suppressedReason } from '../message/suppress.js';
import { DigestSet, digestMessage } from './digest.js';
import { IdSet } from './ids.js';
import type { BuiltRecord, CampaignOptions } from './types.js';

/**
 * Builds records one after the other, in input order: numbers rows, checks that user-given
 * MessageIds are unique, and applies --suppress, --dedupe and --limit. A worker thread runs one for its part
 * of a file, starting at the row and with the ids the parts before it left.
 */
export class RecordChecker {
  /** The row of the last record built. */
  row: number;
  /** User-given MessageIds of the valid records so far. */
  readonly seenIds: IdSet;
  private valid = 0;
  private readonly seen: DigestSet | undefined;
  private readonly digest = new Int32Array(4);
  private readonly ctx: BuildContext;
  // JSON records may differ in keys, so their plan is made per distinct key set.
  private readonly plans = new Map<string, ColumnPlan>();

  constructor(
    private readonly options: CampaignOptions,
    row = 0,
    seenIds: IdSet = new IdSet(),
  ) {
    this.row = row;
    this.seenIds = seenIds;
    // Digests, not the texts: memory stays modest even for a million records.
    this.seen = options.dedupe ? new DigestSet() : undefined;
    this.ctx = {
      settings: options.message,
      template: options.template,
      campaignKey: options.campaignKey,
      now: options.now,
      dlrSigner: options.dlrSigner,
      strict: options.strict,
    };
  }

  /** The column plan for a record of a file without declared columns (JSON, NDJSON). */
  planFor(fields: Record<string, unknown>): ColumnPlan {
    const keys = Object.keys(fields);
    const signature = keys.join('\0');
    let plan = this.plans.get(signature);
    if (!plan) {
      plan = planColumns(keys, this.options.mapping, this.options.template !== undefined);
      if (this.plans.size < 1000) this.plans.set(signature, plan);
    }
    return plan;
  }

  check(record: InputRecord, filePlan: ColumnPlan | undefined): BuiltRecord {
    record.row = ++this.row;
    if (record.malformed !== undefined) return malformed(record, record.malformed);
    const plan = filePlan ?? this.planFor(record.fields);
    const built = buildMessage(record, plan, this.ctx);
    if (!built.ok) return { record, built };
    const id = built.message.MessageId;
    if (id !== undefined && isUserId(plan)) {
      if (!this.seenIds.add(id)) {
        const problems = [{ field: 'MessageId', reason: `"${id}" is used by an earlier record` }];
        return {
          record,
          built: { ok: false, to: built.to, messageId: id, text: built.text, problems },
        };
      }
    }
    // Before --dedupe and --limit: a number that opted out takes no place among those sent.
    const list = this.options.suppress?.match(built.to);
    if (list !== undefined) {
      return { record, built, skipped: suppressedReason(list), suppressedBy: list };
    }
    // Before --dedupe and --limit too: what a named campaign may have sent takes no place here.
    const sentBy = this.sentBy(built.to);
    if (sentBy !== undefined) return { record, built, skipped: sentByReason(sentBy), sentBy };
    if (this.seen) {
      digestMessage(built.to, built.message.UserData, this.digest);
      if (!this.seen.add(this.digest)) {
        const skipped = 'duplicate: an earlier record has the same recipient and text (--dedupe)';
        return { record, built, skipped };
      }
    }
    const limit = this.options.limit;
    if (limit !== undefined && ++this.valid > limit) {
      return { record, built, skipped: `beyond --limit ${limit}` };
    }
    const seenBy = firstHolding(this.options.seenBy, built.to);
    return seenBy === undefined ? { record, built } : { record, built, seenBy };
  }

  /** The first campaign --skip-sent-by names that may have sent to `to`. */
  private sentBy(to: string): string | undefined {
    return firstHolding(this.options.sentBy, to);
  }
}

/** The first of the campaigns whose recipients hold `to`. */
function firstHolding(
  lists: readonly { id: string; numbers: Float64Array }[] | undefined,
  to: string,
): string | undefined {
  if (lists === undefined) return undefined;
  const value = Number(to);
  return lists.find((list) => holds(list.numbers, value))?.id;
}

/** The field a row that could not be read is invalid for (docs/input.md#validation-comes-first). */
export const MALFORMED_FIELD = 'malformed CSV';

const NO_TEXT = analyzeText('');

/** A row that could not be read: invalid, with nothing to send and no MessageId. */
function malformed(record: InputRecord, reason: string): BuiltRecord {
  const problems = [{ field: MALFORMED_FIELD, reason }];
  return { record, built: { ok: false, problems, to: '', messageId: '', text: NO_TEXT } };
}

function isUserId(plan: ColumnPlan): boolean {
  return plan.fields.some(([, field]) => field === 'MessageId');
}
