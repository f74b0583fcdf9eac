// The validation pass: reads the whole campaign once, sends nothing, and says what a send would do.
import type { FieldValue, InputRecord } from '../input/types.js';
import type { FileProblem } from '../message/columns.js';
import { callingCode, priceFor, roundMoney, type PricePerSegment } from '../message/cost.js';
import { describeChar, segmentsWith, ucs2Chars, type Encoding } from '../message/encoding.js';
import { gsmReplacement, normalizeForGsm } from '../message/gsm-normalize.js';
import { DigestSet, digestMessage } from './digest.js';
import type {
  BuiltRecord,
  CampaignReader,
  InvalidRecord,
  NormalizeCounts,
  PlanPart,
  TallyOptions,
  Ucs2Char,
} from './types.js';

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
   * Sees every record built on this thread as it is checked (the CLI spools them for the send
   * pass); it may return a promise, which is awaited, so writing applies backpressure to reading.
   */
  onRecord?: (record: BuiltRecord) => Promise<void> | undefined;
  /**
   * Sees the spool lines of each part a worker thread validated, with the rows among them that
   * are messages (the campaign's `parallel.spool` asks workers for them); awaited like onRecord.
   */
  onSpool?: (lines: string, messageRows: Int32Array) => Promise<void> | undefined;
  /** Told the number of records read so far, as they are read: the UI shows it as progress. */
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
  const { onRecord, onSpool, onProgress } = options;
  const tally = new PlanTally(options, options.countRepeats ? 'count' : undefined);
  for await (const batch of campaign.records()) {
    if (Array.isArray(batch)) {
      for (const item of batch) {
        const pending = onRecord?.(item);
        if (pending) await pending;
        tally.add(item);
      }
    } else {
      if (batch.spool !== undefined && onSpool) {
        const pending = onSpool(batch.spool, batch.messageRows!);
        if (pending) await pending;
      }
      tally.merge(batch.plan, batch.digests);
    }
    onProgress?.(tally.part.records);
  }
  return tally.finish(campaign.fileProblems, options);
}

/**
 * Adds up a plan record by record, or part by part in input order. Repeats are counted here
 * ('count'), or their digests kept for whoever merges the parts ('digests': a worker thread).
 */
export class PlanTally {
  readonly part: PlanPart;
  private readonly ucs2 = new Map<string, Ucs2Char>();
  private readonly byCode = new Map<string, { messages: number; segments: number }>();
  private readonly seen: DigestSet | undefined;
  private repeats = 0;
  private digest = new Int32Array(4);
  private digestCount = 0;

  constructor(
    private readonly options: TallyOptions,
    private readonly repeatMode?: 'count' | 'digests',
  ) {
    if (repeatMode === 'count') this.seen = new DigestSet();
    if (repeatMode === 'digests') this.digest = new Int32Array(4 * 1024);
    this.part = {
      records: 0,
      valid: 0,
      invalid: 0,
      skipped: 0,
      suppressed: 0,
      suppressedByList: {},
      invalidRecords: [],
      invalidByField: {},
      segments: 0,
      segmentsByEncoding: { 'GSM-7': 0, 'UCS-2': 0 },
      messagesByEncoding: { 'GSM-7': 0, 'UCS-2': 0 },
      ucs2: [],
      byCode: [],
      ...(options.gsmNormalize ? { normalized: counts(options.pricePerSegment) } : {}),
      premiumTotal: 0,
      premiumMessages: 0,
      samples: [],
    };
  }

  add({ record, built, skipped, suppressedBy }: BuiltRecord): void {
    const part = this.part;
    part.records++;
    if (skipped !== undefined) {
      part.skipped++;
      if (suppressedBy !== undefined) {
        part.suppressed++;
        part.suppressedByList[suppressedBy] = (part.suppressedByList[suppressedBy] ?? 0) + 1;
      }
      return;
    }
    if (!built.ok) {
      part.invalid++;
      const byField = part.invalidByField;
      for (const field of new Set(built.problems.map((p) => p.field))) {
        byField[field] = (byField[field] ?? 0) + 1;
      }
      if (part.invalidRecords.length < MAX_LISTED_INVALID) {
        part.invalidRecords.push({
          row: record.row,
          file: record.file,
          line: record.line,
          problems: built.problems,
        });
      }
      return;
    }
    part.valid++;
    const { text, message } = built;
    if (part.samples.length < SAMPLES) {
      part.samples.push({ row: record.row, to: built.to, text: message.UserData });
    }
    if (this.repeatMode === 'count') {
      digestMessage(built.to, message.UserData, this.digest);
      if (!this.seen!.add(this.digest)) this.repeats++;
    } else if (this.repeatMode === 'digests') {
      if ((this.digestCount + 1) * 4 > this.digest.length) {
        const grown = new Int32Array(this.digest.length * 2);
        grown.set(this.digest);
        this.digest = grown;
      }
      digestMessage(built.to, message.UserData, this.digest.subarray(this.digestCount * 4));
      this.digestCount++;
    }
    part.segments += text.segments;
    part.segmentsByEncoding[text.encoding] += text.segments;
    part.messagesByEncoding[text.encoding]++;
    if (message.Price > 0) {
      part.premiumTotal += message.Price;
      part.premiumMessages++;
    }
    const pricing = this.options.pricePerSegment;
    let price: number | undefined;
    if (pricing !== undefined) {
      const code = callingCode(built.to);
      const sums = this.byCode.get(code) ?? { messages: 0, segments: 0 };
      sums.messages++;
      sums.segments += text.segments;
      this.byCode.set(code, sums);
      price = priceFor(pricing, code);
    }
    if (built.normalized && part.normalized) {
      count(part.normalized, built.normalized.replaced, built.normalized.segmentsSaved, price);
    }
    if (text.encoding !== 'UCS-2') return;
    const userData = message.UserData;
    if (!this.options.gsmNormalize) {
      const would = normalizeForGsm(userData, text);
      if (would.replaced > 0) {
        part.normalizable ??= counts(pricing);
        count(part.normalizable, would.replaced, would.segmentsSaved, price);
      }
    }
    const found = ucs2Chars(userData);
    for (const [ch, occurrences] of found) {
      let entry = this.ucs2.get(ch);
      if (!entry) {
        entry = ucs2Entry(ch, price !== undefined);
        this.ucs2.set(ch, entry);
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
          field: fieldOf(ch, record, built.textColumn, this.options.template),
        });
      }
    }
  }

  /** The digests of the valid records so far, four words each ('digests' mode). */
  digests(): Int32Array {
    return this.digest.slice(0, this.digestCount * 4);
  }

  /** The part so far, as plain data. */
  snapshot(): PlanPart {
    return { ...this.part, ucs2: [...this.ucs2], byCode: [...this.byCode] };
  }

  /** Adds the part of the campaign that comes next, and the digests of its valid records. */
  merge(next: PlanPart, digests?: Int32Array): void {
    const part = this.part;
    part.records += next.records;
    part.valid += next.valid;
    part.invalid += next.invalid;
    part.skipped += next.skipped;
    part.suppressed += next.suppressed;
    addCounts(part.suppressedByList, next.suppressedByList);
    for (const invalid of next.invalidRecords) {
      if (part.invalidRecords.length >= MAX_LISTED_INVALID) break;
      part.invalidRecords.push(invalid);
    }
    addCounts(part.invalidByField, next.invalidByField);
    part.segments += next.segments;
    for (const encoding of ['GSM-7', 'UCS-2'] as const) {
      part.segmentsByEncoding[encoding] += next.segmentsByEncoding[encoding];
      part.messagesByEncoding[encoding] += next.messagesByEncoding[encoding];
    }
    for (const [ch, entry] of next.ucs2) {
      const known = this.ucs2.get(ch);
      if (!known) {
        this.ucs2.set(ch, entry);
        continue;
      }
      known.messages += entry.messages;
      known.segments += entry.segments;
      known.segmentsWithout += entry.segmentsWithout;
      if (known.cost !== undefined) known.cost += entry.cost!;
      if (known.costWithout !== undefined) known.costWithout += entry.costWithout!;
      for (const row of entry.rows) {
        if (known.rows.length >= ROWS_PER_CHAR) break;
        known.rows.push(row);
      }
    }
    for (const [code, sums] of next.byCode) {
      const known = this.byCode.get(code) ?? { messages: 0, segments: 0 };
      known.messages += sums.messages;
      known.segments += sums.segments;
      this.byCode.set(code, known);
    }
    if (next.normalized && part.normalized) addNormalized(part.normalized, next.normalized);
    if (next.normalizable) {
      part.normalizable ??= counts(this.options.pricePerSegment);
      addNormalized(part.normalizable, next.normalizable);
    }
    part.premiumTotal += next.premiumTotal;
    part.premiumMessages += next.premiumMessages;
    for (const sample of next.samples) {
      if (part.samples.length >= SAMPLES) break;
      part.samples.push(sample);
    }
    if (this.seen && digests) {
      for (let at = 0; at < digests.length; at += 4)
        if (!this.seen.add(digests, at)) this.repeats++;
    }
  }

  finish(
    fileProblems: FileProblem[],
    options: { batchSize: number; currency?: string; maxCost?: number },
  ): Plan {
    const part = this.part;
    const pricing = this.options.pricePerSegment;
    // The most records first; then what the character costs; then code point, so the order is stable.
    const ucs2Chars = [...this.ucs2.values()]
      .sort(
        (a, b) =>
          b.messages - a.messages ||
          b.segments - b.segmentsWithout - (a.segments - a.segmentsWithout) ||
          a.codePoint.length - b.codePoint.length ||
          (a.codePoint < b.codePoint ? -1 : 1),
      )
      .slice(0, MAX_LISTED_CHARS);
    for (const entry of ucs2Chars) {
      if (entry.cost !== undefined) entry.cost = roundMoney(entry.cost);
      if (entry.costWithout !== undefined) entry.costWithout = roundMoney(entry.costWithout);
    }
    for (const sums of [part.normalized, part.normalizable]) {
      if (sums?.costSaved !== undefined) sums.costSaved = roundMoney(sums.costSaved);
    }
    // The order of the plan's keys is that of its JSON document.
    const plan: Plan = {
      records: part.records,
      valid: part.valid,
      invalid: part.invalid,
      skipped: part.skipped,
      suppressed: part.suppressed,
      suppressedByList: part.suppressedByList,
      fileProblems,
      invalidRecords: part.invalidRecords,
      invalidByField: part.invalidByField,
      batches: Math.ceil(part.valid / options.batchSize),
      batchSize: options.batchSize,
      segments: part.segments,
      segmentsByEncoding: part.segmentsByEncoding,
      messagesByEncoding: part.messagesByEncoding,
      ucs2Chars,
      ucs2CharCount: this.ucs2.size,
      ...(part.normalized ? { normalized: part.normalized } : {}),
      premiumTotal: part.premiumTotal,
      premiumMessages: part.premiumMessages,
      samples: part.samples,
      ...(this.seen ? { repeats: this.repeats } : {}),
    };
    if (part.normalizable) plan.normalizable = part.normalizable;
    if (pricing !== undefined) plan.cost = estimate(this.byCode, pricing, options);
    return plan;
  }
}

function ucs2Entry(ch: string, priced: boolean): Ucs2Char {
  const replacement = gsmReplacement(ch);
  return {
    char: describeChar(ch),
    codePoint: codePoint(ch),
    messages: 0,
    rows: [],
    segments: 0,
    segmentsWithout: 0,
    ...(replacement !== undefined ? { replacement } : {}),
    ...(priced ? { cost: 0, costWithout: 0 } : {}),
  };
}

function addCounts(into: Record<string, number>, from: Record<string, number>): void {
  for (const [key, n] of Object.entries(from)) into[key] = (into[key] ?? 0) + n;
}

function addNormalized(into: NormalizeCounts, from: NormalizeCounts): void {
  into.messages += from.messages;
  into.characters += from.characters;
  into.segmentsSaved += from.segmentsSaved;
  if (into.costSaved !== undefined) into.costSaved += from.costSaved ?? 0;
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
  options: { currency?: string; maxCost?: number },
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
