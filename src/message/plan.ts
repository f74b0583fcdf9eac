// The validation pass: reads the whole campaign once, sends nothing, and says what a send would do.
import { createHash } from 'node:crypto';
import type { PricePerSegment } from '../config/settings.js';
import type { FieldValue, InputRecord } from '../input/types.js';
import type { Problem } from './build.js';
import type { BuiltRecord, CampaignReader, FileProblem } from './campaign.js';
import { callingCode, priceFor, roundMoney } from './cost.js';
import { describeChar, segmentsWith, ucs2Chars, type Encoding } from './encoding.js';
import { gsmReplacement, normalizeForGsm } from './gsm-normalize.js';

export interface InvalidRecord {
  row: number;
  file: string;
  line: number;
  problems: Problem[];
}

/** A record where a character occurs: file:line, and the column (or "template") that holds it. */
export interface CharRow {
  row: number;
  file: string;
  line: number;
  field: string;
}

/** One character that forced UCS-2, and what it costs. */
export interface Ucs2Char {
  /** The character as a person can see it: `"’" (U+2019)`. */
  char: string;
  /** `U+2019` */
  codePoint: string;
  /** Records to send whose text holds it. */
  messages: number;
  /** The first of them, in input order. */
  rows: CharRow[];
  /** Segments of those records as they will be sent. */
  segments: number;
  /**
   * Segments of the same records with this character written in GSM-7: as --gsm-normalize would
   * (`replacement`), or left out when its table has no row for it. The same as `segments` when
   * another character keeps a record UCS-2 anyway.
   */
  segmentsWithout: number;
  /** What --gsm-normalize sends it as; absent when its table has no row for it. */
  replacement?: string;
  /** With a price per segment: what those records cost, and would cost without it. */
  cost?: number;
  costWithout?: number;
}

/** What --gsm-normalize changes (or would): records, characters replaced, segments saved. */
export interface NormalizeCounts {
  messages: number;
  characters: number;
  segmentsSaved: number;
  /** With a price per segment: the cost saved. */
  costSaved?: number;
}

/** The estimate, with a price per segment: in total and by calling code. */
export interface CostEstimate {
  currency?: string;
  total: number;
  /** By calling code, the most expensive first. */
  byCallingCode: {
    callingCode: string;
    messages: number;
    segments: number;
    pricePerSegment: number;
    cost: number;
  }[];
  /** --max-cost, when given: a total above it refuses the run. */
  maxCost?: number;
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
  /** Characters that forced UCS-2, in the most records first (at most MAX_LISTED_CHARS). */
  ucs2Chars: Ucs2Char[];
  /** Distinct characters that forced UCS-2, listed or not. */
  ucs2CharCount: number;
  /** With --gsm-normalize: records whose text it changed, characters replaced, segments saved. */
  normalized?: NormalizeCounts;
  /** Without --gsm-normalize: what it would change, when it would change anything. */
  normalizable?: NormalizeCounts;
  /** With a price per segment. */
  cost?: CostEstimate;
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
  /** --gsm-normalize is on: count what it changed (`Plan.normalized`). */
  gsmNormalize?: boolean;
  /** The --text template's source, to tell a character of the template from one of a column. */
  template?: string;
  /** A price per segment: the plan estimates the cost. */
  pricePerSegment?: PricePerSegment;
  currency?: string;
  maxCost?: number;
}

/** Enough detail for a person to fix the file; the counts by field cover the rest. */
export const MAX_LISTED_INVALID = 50;

/** Enough rendered texts to see that the template does what was meant. */
export const SAMPLES = 3;

/** Characters listed as having forced UCS-2 (a Chinese campaign has thousands): the costliest. */
export const MAX_LISTED_CHARS = 50;

/** Rows listed for each such character: enough to find it in the file. */
export const ROWS_PER_CHAR = 5;

export async function planCampaign(campaign: CampaignReader, options: PlanOptions): Promise<Plan> {
  const { batchSize, onRecord, onProgress } = options;
  // 12-character digests, not the texts: a dry run of a million records stays modest in memory.
  const seen = options.countRepeats ? new Set<string>() : undefined;
  const invalidRecords: InvalidRecord[] = [];
  const invalidByField: Record<string, number> = {};
  const ucs2 = new Map<string, Ucs2Char>();
  const pricing = options.pricePerSegment;
  const byCode = new Map<string, { messages: number; segments: number }>();
  let normalizable: NormalizeCounts | undefined;
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
    ucs2CharCount: 0,
    ...(options.gsmNormalize ? { normalized: counts(pricing) } : {}),
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
    let price: number | undefined;
    if (pricing !== undefined) {
      const code = callingCode(built.to);
      const sums = byCode.get(code) ?? { messages: 0, segments: 0 };
      sums.messages++;
      sums.segments += text.segments;
      byCode.set(code, sums);
      price = priceFor(pricing, code);
    }
    if (built.normalized && plan.normalized) {
      count(plan.normalized, built.normalized.replaced, built.normalized.segmentsSaved, price);
    }
    if (text.encoding === 'UCS-2') {
      const userData = message.UserData;
      if (!options.gsmNormalize) {
        const would = normalizeForGsm(userData, text);
        if (would.replaced > 0) {
          normalizable ??= counts(pricing);
          count(normalizable, would.replaced, would.segmentsSaved, price);
        }
      }
      const found = ucs2Chars(userData);
      for (const [ch, occurrences] of found) {
        let entry = ucs2.get(ch);
        if (!entry) {
          const replacement = gsmReplacement(ch);
          entry = {
            char: describeChar(ch),
            codePoint: codePoint(ch),
            messages: 0,
            rows: [],
            segments: 0,
            segmentsWithout: 0,
            ...(replacement !== undefined ? { replacement } : {}),
            ...(price !== undefined ? { cost: 0, costWithout: 0 } : {}),
          };
          ucs2.set(ch, entry);
        }
        const without = segmentsWith(
          userData,
          text,
          found.size,
          ch,
          occurrences,
          entry.replacement ?? '',
        );
        entry.messages++;
        entry.segments += text.segments;
        entry.segmentsWithout += without;
        if (price !== undefined) {
          entry.cost! += text.segments * price;
          entry.costWithout! += without * price;
        }
        if (entry.rows.length < ROWS_PER_CHAR) {
          entry.rows.push({
            row: record.row,
            file: record.file,
            line: record.line,
            field: fieldOf(ch, record, built.textColumn, options.template),
          });
        }
      }
    }
    if (message.Price > 0) {
      plan.premiumTotal += message.Price;
      plan.premiumMessages++;
    }
  }
  plan.batches = Math.ceil(plan.valid / batchSize);
  plan.ucs2CharCount = ucs2.size;
  // The most records first; then what the character costs; then code point, so the order is stable.
  plan.ucs2Chars = [...ucs2.values()]
    .sort(
      (a, b) =>
        b.messages - a.messages ||
        b.segments - b.segmentsWithout - (a.segments - a.segmentsWithout) ||
        a.codePoint.length - b.codePoint.length ||
        (a.codePoint < b.codePoint ? -1 : 1),
    )
    .slice(0, MAX_LISTED_CHARS);
  for (const entry of plan.ucs2Chars) {
    if (entry.cost !== undefined) entry.cost = roundMoney(entry.cost);
    if (entry.costWithout !== undefined) entry.costWithout = roundMoney(entry.costWithout);
  }
  if (pricing !== undefined) plan.cost = estimate(byCode, pricing, options);
  for (const sums of [plan.normalized, normalizable]) {
    if (sums?.costSaved !== undefined) sums.costSaved = roundMoney(sums.costSaved);
  }
  if (normalizable) plan.normalizable = normalizable;
  return plan;
}

function counts(pricing: PricePerSegment | undefined): NormalizeCounts {
  return {
    messages: 0,
    characters: 0,
    segmentsSaved: 0,
    ...(pricing !== undefined ? { costSaved: 0 } : {}),
  };
}

function count(
  sums: NormalizeCounts,
  characters: number,
  segmentsSaved: number,
  price: number | undefined,
): void {
  sums.messages++;
  sums.characters += characters;
  sums.segmentsSaved += segmentsSaved;
  if (price !== undefined) sums.costSaved! += segmentsSaved * price;
}

function estimate(
  byCode: ReadonlyMap<string, { messages: number; segments: number }>,
  pricing: PricePerSegment,
  options: PlanOptions,
): CostEstimate {
  const rows = [...byCode].map(([code, { messages, segments }]) => {
    const pricePerSegment = priceFor(pricing, code);
    return {
      callingCode: code,
      messages,
      segments,
      pricePerSegment,
      cost: roundMoney(segments * pricePerSegment),
    };
  });
  rows.sort(
    (a, b) =>
      b.cost - a.cost || b.segments - a.segments || Number(a.callingCode) - Number(b.callingCode),
  );
  return {
    ...(options.currency !== undefined ? { currency: options.currency } : {}),
    total: roundMoney(rows.reduce((sum, row) => sum + row.cost, 0)),
    byCallingCode: rows,
    ...(options.maxCost !== undefined ? { maxCost: options.maxCost } : {}),
  };
}

/** `U+2019`, `U+1F389` */
function codePoint(ch: string): string {
  return `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
}

/**
 * Where a character of the text comes from: the text column itself, else the template, else the
 * first column filled into a placeholder that holds it.
 */
function fieldOf(
  ch: string,
  record: InputRecord,
  textColumn: string | undefined,
  template: string | undefined,
): string {
  if (textColumn !== undefined && holds(record.fields[textColumn], ch)) return textColumn;
  if (textColumn === undefined && template?.includes(ch)) return 'template';
  for (const [name, value] of Object.entries(record.fields)) {
    if (name !== textColumn && holds(value, ch)) return name;
  }
  return textColumn ?? 'template';
}

function holds(value: FieldValue | undefined, ch: string): boolean {
  if (typeof value === 'string') return value.includes(ch);
  if (typeof value === 'object' && value !== null) return JSON.stringify(value).includes(ch);
  return false;
}
