// Adds up a plan record by record, or part by part in input order: the counts here; the UCS-2
// characters, the cost by calling code and the repeats each in a tally of its own.
import type { InputRecord } from '../input/types.js';
import type { RecordProblem } from '../message/build.js';
import type { PricePerSegment } from '../message/cost.js';
import { normalizeForGsm } from '../message/gsm-normalize.js';
import type { TextInfo } from '../message/encoding.js';
import { CostTally } from './pricing.js';
import { RepeatTally } from './repeats.js';
import type {
  BuiltRecord,
  InvalidRecord,
  NormalizeCounts,
  PlanCounts,
  PlanPart,
  TallyOptions,
} from './types.js';
import { Ucs2Tally } from './ucs2.js';

/**
 * Enough detail for a person to fix the file in one go; the counts by field cover the rest.
 * Malformed rows and other invalid records are listed up to this many each.
 */
const MAX_LISTED_INVALID = 100;

/** Enough rendered texts to see that the template does what was meant. */
const SAMPLES = 3;

/**
 * Repeats are counted here ('count'), or their digests kept for whoever merges the parts
 * ('digests': a worker thread).
 */
export class PlanTally {
  readonly part: PlanCounts;
  readonly ucs2: Ucs2Tally;
  /** With a price per segment. */
  readonly cost: CostTally | undefined;
  readonly repeats: RepeatTally | undefined;

  constructor(
    private readonly options: TallyOptions,
    repeatMode?: 'count' | 'digests',
    spillDir?: string,
  ) {
    this.ucs2 = new Ucs2Tally(options.template);
    const pricing = options.pricePerSegment;
    if (pricing !== undefined) this.cost = new CostTally(pricing);
    if (repeatMode) this.repeats = new RepeatTally(repeatMode, spillDir);
    this.part = {
      records: 0,
      valid: 0,
      invalid: 0,
      skipped: 0,
      suppressed: 0,
      suppressedByList: {},
      sentBy: {},
      alreadySent: {},
      malformed: 0,
      malformedRows: [],
      invalidRecords: [],
      invalidByField: {},
      segments: 0,
      segmentsByEncoding: { 'GSM-7': 0, 'UCS-2': 0 },
      messagesByEncoding: { 'GSM-7': 0, 'UCS-2': 0 },
      ...(options.gsmNormalize ? { normalized: counts(pricing) } : {}),
      premiumTotal: 0,
      premiumMessages: 0,
      samples: [],
    };
  }

  add({ record, built, skipped, suppressedBy, sentBy, seenBy }: BuiltRecord): void {
    const part = this.part;
    part.records++;
    if (skipped !== undefined) {
      part.skipped++;
      if (suppressedBy !== undefined) {
        part.suppressed++;
        part.suppressedByList[suppressedBy] = (part.suppressedByList[suppressedBy] ?? 0) + 1;
      }
      if (sentBy !== undefined) part.sentBy[sentBy] = (part.sentBy[sentBy] ?? 0) + 1;
      return;
    }
    if (!built.ok) {
      countInvalid(part, record, built.problems);
      return;
    }
    part.valid++;
    if (seenBy !== undefined) part.alreadySent[seenBy] = (part.alreadySent[seenBy] ?? 0) + 1;
    const { text, message } = built;
    if (part.samples.length < SAMPLES) {
      part.samples.push({ row: record.row, to: built.to, text: message.UserData });
    }
    this.repeats?.add(built.to, message.UserData);
    part.segments += text.segments;
    part.segmentsByEncoding[text.encoding] += text.segments;
    part.messagesByEncoding[text.encoding]++;
    if (message.Price > 0) {
      part.premiumTotal += message.Price;
      part.premiumMessages++;
    }
    if (built.braced !== undefined) {
      const { file, line } = record;
      part.braced ??= { records: 0, first: { file, line, name: built.braced } };
      part.braced.records++;
    }
    const price = this.cost?.add(built.to, text.segments);
    if (built.normalized && part.normalized) {
      count(part.normalized, built.normalized.replaced, built.normalized.segmentsSaved, price);
    }
    if (text.encoding !== 'UCS-2') return;
    if (!this.options.gsmNormalize) this.countNormalizable(message.UserData, text, price);
    this.ucs2.add(record, built, price);
  }

  /** Without --gsm-normalize: what it would change in a UCS-2 text. */
  private countNormalizable(userData: string, text: TextInfo, price: number | undefined): void {
    const would = normalizeForGsm(userData, text);
    if (would.replaced === 0) return;
    this.part.normalizable ??= counts(this.options.pricePerSegment);
    count(this.part.normalizable, would.replaced, would.segmentsSaved, price);
  }

  /** The digests of the valid records so far, four words each ('digests' mode). */
  digests(): Int32Array {
    return this.repeats?.digests() ?? new Int32Array(0);
  }

  /** The part so far, as plain data. */
  snapshot(): PlanPart {
    return { ...this.part, ucs2: [...this.ucs2.chars], byCode: [...(this.cost?.byCode ?? [])] };
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
    addCounts(part.sentBy, next.sentBy);
    addCounts(part.alreadySent, next.alreadySent);
    part.malformed += next.malformed;
    listUpTo(part.malformedRows, next.malformedRows);
    listUpTo(part.invalidRecords, next.invalidRecords);
    addCounts(part.invalidByField, next.invalidByField);
    part.segments += next.segments;
    for (const encoding of ['GSM-7', 'UCS-2'] as const) {
      part.segmentsByEncoding[encoding] += next.segmentsByEncoding[encoding];
      part.messagesByEncoding[encoding] += next.messagesByEncoding[encoding];
    }
    this.ucs2.merge(next.ucs2);
    this.cost?.merge(next.byCode);
    if (next.normalized && part.normalized) addNormalized(part.normalized, next.normalized);
    if (next.normalizable) {
      part.normalizable ??= counts(this.options.pricePerSegment);
      addNormalized(part.normalizable, next.normalizable);
    }
    if (next.braced) {
      part.braced ??= { records: 0, first: next.braced.first };
      part.braced.records += next.braced.records;
    }
    part.premiumTotal += next.premiumTotal;
    part.premiumMessages += next.premiumMessages;
    for (const sample of next.samples) {
      if (part.samples.length >= SAMPLES) break;
      part.samples.push(sample);
    }
    if (digests) this.repeats?.merge(digests);
  }
}

function countInvalid(part: PlanCounts, record: InputRecord, problems: RecordProblem[]): void {
  part.invalid++;
  const byField = part.invalidByField;
  for (const field of new Set(problems.map((p) => p.field))) {
    byField[field] = (byField[field] ?? 0) + 1;
  }
  if (record.malformed !== undefined) part.malformed++;
  const list = record.malformed !== undefined ? part.malformedRows : part.invalidRecords;
  if (list.length < MAX_LISTED_INVALID) {
    list.push({ row: record.row, file: record.file, line: record.line, problems });
  }
}

function listUpTo(into: InvalidRecord[], from: readonly InvalidRecord[]): void {
  for (const invalid of from) {
    if (into.length >= MAX_LISTED_INVALID) return;
    into.push(invalid);
  }
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
