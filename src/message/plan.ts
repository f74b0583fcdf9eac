// The validation pass: reads the whole campaign once, sends nothing, and says what a send would do.
import { createHash } from 'node:crypto';
import type { Problem } from './build.js';
import type { BuiltRecord, CampaignReader, FileProblem } from './campaign.js';
import { describeChar, type Encoding } from './encoding.js';

export interface InvalidRecord {
  row: number;
  file: string;
  line: number;
  problems: Problem[];
}

export interface Plan {
  records: number;
  /** Records that will be sent. */
  valid: number;
  invalid: number;
  /** Valid records left out by --limit, --dedupe or a suppression list. */
  skipped: number;
  /** Of those, the records whose recipient is on a suppression list. */
  suppressed: number;
  /** Suppressed records by the list (base name) that holds the recipient. */
  suppressedByList: Record<string, number>;
  fileProblems: FileProblem[];
  /** The first invalid records in input order (all of them up to the cap). */
  invalidRecords: InvalidRecord[];
  /** How many records failed for each reason, by field. */
  invalidByField: Record<string, number>;
  batches: number;
  batchSize: number;
  segments: number;
  segmentsByEncoding: Record<Encoding, number>;
  messagesByEncoding: Record<Encoding, number>;
  /** Characters that forced UCS-2, with how many messages each forced. */
  ucs2Chars: { char: string; messages: number }[];
  /** Sum of Price over messages with Price > 0 (øre). */
  premiumTotal: number;
  premiumMessages: number;
  /** The first valid records to send, as the gateway will get them: for a person to eyeball. */
  samples: { row: number; to: string; text: string }[];
  /**
   * Valid records whose recipient and text repeat an earlier one (what --dedupe would skip);
   * counted only when asked (the dry run), since it keeps a digest per record.
   */
  repeats?: number;
}

export interface PlanOptions {
  batchSize: number;
  /**
   * Sees every record as it is checked (the CLI spools them for the send pass); it may return a
   * promise, which is awaited, so writing it out applies backpressure to reading.
   */
  onRecord?: (record: BuiltRecord) => Promise<void> | undefined;
  /** Told the number of records read so far, after each record: the UI shows it as progress. */
  onProgress?: (records: number) => void;
  /** Count records whose recipient and text repeat an earlier one (`Plan.repeats`). */
  countRepeats?: boolean;
}

/** Enough detail for a person to fix the file; the counts by field cover the rest. */
export const MAX_LISTED_INVALID = 50;

/** Enough rendered texts to see that the template does what was meant. */
export const SAMPLES = 3;

export async function planCampaign(campaign: CampaignReader, options: PlanOptions): Promise<Plan> {
  const { batchSize, onRecord, onProgress } = options;
  // 12-character digests, not the texts: a dry run of a million records stays modest in memory.
  const seen = options.countRepeats ? new Set<string>() : undefined;
  const invalidRecords: InvalidRecord[] = [];
  const invalidByField: Record<string, number> = {};
  const ucs2 = new Map<string, number>();
  const plan: Plan = {
    records: 0,
    valid: 0,
    invalid: 0,
    skipped: 0,
    suppressed: 0,
    suppressedByList: {},
    fileProblems: campaign.fileProblems,
    invalidRecords,
    invalidByField,
    batches: 0,
    batchSize,
    segments: 0,
    segmentsByEncoding: { 'GSM-7': 0, 'UCS-2': 0 },
    messagesByEncoding: { 'GSM-7': 0, 'UCS-2': 0 },
    ucs2Chars: [],
    premiumTotal: 0,
    premiumMessages: 0,
    samples: [],
    ...(seen ? { repeats: 0 } : {}),
  };
  for await (const item of campaign.records()) {
    const pending = onRecord?.(item);
    if (pending) await pending;
    const { record, built, skipped, suppressedBy } = item;
    plan.records++;
    onProgress?.(plan.records);
    if (skipped !== undefined) {
      plan.skipped++;
      if (suppressedBy !== undefined) {
        plan.suppressed++;
        plan.suppressedByList[suppressedBy] = (plan.suppressedByList[suppressedBy] ?? 0) + 1;
      }
      continue;
    }
    if (!built.ok) {
      plan.invalid++;
      for (const field of new Set(built.problems.map((p) => p.field))) {
        invalidByField[field] = (invalidByField[field] ?? 0) + 1;
      }
      if (invalidRecords.length < MAX_LISTED_INVALID) {
        invalidRecords.push({
          row: record.row,
          file: record.file,
          line: record.line,
          problems: built.problems,
        });
      }
      continue;
    }
    plan.valid++;
    const { text, message } = built;
    if (plan.samples.length < SAMPLES) {
      plan.samples.push({ row: record.row, to: built.to, text: message.UserData });
    }
    if (seen) {
      const key = createHash('md5')
        .update(built.to)
        .update('\0')
        .update(message.UserData)
        .digest('base64')
        .slice(0, 12);
      if (seen.has(key)) plan.repeats!++;
      else seen.add(key);
    }
    plan.segments += text.segments;
    plan.segmentsByEncoding[text.encoding] += text.segments;
    plan.messagesByEncoding[text.encoding]++;
    if (text.ucs2Char !== undefined) ucs2.set(text.ucs2Char, (ucs2.get(text.ucs2Char) ?? 0) + 1);
    if (message.Price > 0) {
      plan.premiumTotal += message.Price;
      plan.premiumMessages++;
    }
  }
  plan.batches = Math.ceil(plan.valid / batchSize);
  plan.ucs2Chars = [...ucs2]
    .sort((a, b) => b[1] - a[1])
    .map(([char, messages]) => ({ char: describeChar(char), messages }));
  return plan;
}
