// The validation pass: reads the whole campaign once, sends nothing, and says what a send would do.
import type { Problem } from './build.js';
import type { BuiltRecord, CampaignReader, FileProblem } from './campaign.js';
import { DigestSet, digestMessage } from './digest.js';
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
  /** Valid records left out by --limit or --dedupe. */
  skipped: number;
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
}

/** Enough detail for a person to fix the file; the counts by field cover the rest. */
export const MAX_LISTED_INVALID = 50;

/** Enough rendered texts to see that the template does what was meant. */
export const SAMPLES = 3;

export async function planCampaign(campaign: CampaignReader, options: PlanOptions): Promise<Plan> {
  const { onRecord, onSpool, onProgress } = options;
  const tally = new PlanTally(options.countRepeats ? 'count' : undefined);
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
  return tally.finish(campaign.fileProblems, options.batchSize);
}

/** The counts of a plan for part of a campaign, as a worker thread sends them: plain data. */
export interface PlanPart {
  records: number;
  valid: number;
  invalid: number;
  skipped: number;
  invalidRecords: InvalidRecord[];
  invalidByField: Record<string, number>;
  segments: number;
  segmentsByEncoding: Record<Encoding, number>;
  messagesByEncoding: Record<Encoding, number>;
  /** Characters that forced UCS-2, in order of first use, with how many messages each forced. */
  ucs2: [string, number][];
  premiumTotal: number;
  premiumMessages: number;
  samples: { row: number; to: string; text: string }[];
}

/**
 * Adds up a plan record by record, or part by part in input order. Repeats are counted here
 * ('count'), or their digests kept for whoever merges the parts ('digests': a worker thread).
 */
export class PlanTally {
  readonly part: PlanPart = {
    records: 0,
    valid: 0,
    invalid: 0,
    skipped: 0,
    invalidRecords: [],
    invalidByField: {},
    segments: 0,
    segmentsByEncoding: { 'GSM-7': 0, 'UCS-2': 0 },
    messagesByEncoding: { 'GSM-7': 0, 'UCS-2': 0 },
    ucs2: [],
    premiumTotal: 0,
    premiumMessages: 0,
    samples: [],
  };
  private readonly ucs2 = new Map<string, number>();
  private readonly seen: DigestSet | undefined;
  private repeats = 0;
  private digest = new Int32Array(4);
  private digestCount = 0;

  constructor(private readonly repeatMode?: 'count' | 'digests') {
    if (repeatMode === 'count') this.seen = new DigestSet();
    if (repeatMode === 'digests') this.digest = new Int32Array(4 * 1024);
  }

  add({ record, built, skipped }: BuiltRecord): void {
    const part = this.part;
    part.records++;
    if (skipped !== undefined) {
      part.skipped++;
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
    if (text.ucs2Char !== undefined) {
      this.ucs2.set(text.ucs2Char, (this.ucs2.get(text.ucs2Char) ?? 0) + 1);
    }
    if (message.Price > 0) {
      part.premiumTotal += message.Price;
      part.premiumMessages++;
    }
  }

  /** The digests of the valid records so far, four words each ('digests' mode). */
  digests(): Int32Array {
    return this.digest.slice(0, this.digestCount * 4);
  }

  /** The part so far, as plain data. */
  snapshot(): PlanPart {
    return { ...this.part, ucs2: [...this.ucs2] };
  }

  /** Adds the part of the campaign that comes next, and the digests of its valid records. */
  merge(next: PlanPart, digests?: Int32Array): void {
    const part = this.part;
    part.records += next.records;
    part.valid += next.valid;
    part.invalid += next.invalid;
    part.skipped += next.skipped;
    for (const invalid of next.invalidRecords) {
      if (part.invalidRecords.length >= MAX_LISTED_INVALID) break;
      part.invalidRecords.push(invalid);
    }
    for (const [field, count] of Object.entries(next.invalidByField)) {
      part.invalidByField[field] = (part.invalidByField[field] ?? 0) + count;
    }
    part.segments += next.segments;
    for (const encoding of ['GSM-7', 'UCS-2'] as const) {
      part.segmentsByEncoding[encoding] += next.segmentsByEncoding[encoding];
      part.messagesByEncoding[encoding] += next.messagesByEncoding[encoding];
    }
    for (const [char, count] of next.ucs2) this.ucs2.set(char, (this.ucs2.get(char) ?? 0) + count);
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

  finish(fileProblems: FileProblem[], batchSize: number): Plan {
    const part = this.part;
    // The order of the plan's keys is that of its JSON document.
    return {
      records: part.records,
      valid: part.valid,
      invalid: part.invalid,
      skipped: part.skipped,
      fileProblems,
      invalidRecords: part.invalidRecords,
      invalidByField: part.invalidByField,
      batches: Math.ceil(part.valid / batchSize),
      batchSize,
      segments: part.segments,
      segmentsByEncoding: part.segmentsByEncoding,
      messagesByEncoding: part.messagesByEncoding,
      ucs2Chars: [...this.ucs2]
        .sort((a, b) => b[1] - a[1])
        .map(([char, messages]) => ({ char: describeChar(char), messages })),
      premiumTotal: part.premiumTotal,
      premiumMessages: part.premiumMessages,
      samples: part.samples,
      ...(this.seen ? { repeats: this.repeats } : {}),
    };
  }
}
