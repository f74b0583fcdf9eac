// The validation pass: reads the whole campaign once, sends nothing, and says what a send would do.
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FileProblem } from '../message/columns.js';
import { roundMoney, type PricePerSegment } from '../message/cost.js';
import { PlanTally } from './tally.js';
import type { BuiltRecord, CampaignReader, CostEstimate, PlanCounts, Ucs2Char } from './types.js';

export interface Plan extends PlanCounts {
  fileProblems: FileProblem[];
  /** What looks like a mistake but does not stop the run (a column in single braces). */
  warnings: FileProblem[];
  batches: number;
  batchSize: number;
  /** Characters that forced UCS-2, in the most records first (at most MAX_LISTED_CHARS). */
  ucs2Chars: Ucs2Char[];
  /** Distinct characters that forced UCS-2, listed or not. */
  ucs2CharCount: number;
  /** With a price per segment. */
  cost?: CostEstimate;
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
   * Sees the spool lines (UTF-8) of each part a worker thread validated, with the rows among them that
   * are messages (the campaign's `parallel.spool` asks workers for them); awaited like onRecord.
   */
  onSpool?: (lines: Uint8Array, messageRows: Int32Array) => Promise<void> | undefined;
  /** Told the number of records read so far, as they are read: the UI shows it as progress. */
  onProgress?: (records: number) => void;
  /** Count records whose recipient and text repeat an earlier one (`Plan.repeats`). */
  countRepeats?: boolean;
  /**
   * Where counting repeats keeps its digests once they outgrow a megabyte of buffers (the state
   * directory's `tmp/`; removed when the pass ends): one digest a record on disk.
   */
  spillDir?: string;
  /** --gsm-normalize is on: count what it changed (`Plan.normalized`). */
  gsmNormalize?: boolean;
  /** The --text template's source, to tell a character of the template from one of a column. */
  template?: string;
  /** A price per segment: the plan estimates the cost. */
  pricePerSegment?: PricePerSegment;
  currency?: string;
  maxCost?: number;
}

export async function planCampaign(campaign: CampaignReader, options: PlanOptions): Promise<Plan> {
  const { onRecord, onSpool, onProgress } = options;
  const tally = new PlanTally(
    options,
    options.countRepeats ? 'count' : undefined,
    options.spillDir ?? join(tmpdir(), 'sms-send'),
  );
  try {
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
    return planOf(tally, campaign, options);
  } finally {
    tally.repeats?.close();
  }
}

/** The plan a campaign's tally adds up to. */
function planOf(
  tally: PlanTally,
  { fileProblems, fileWarnings }: Pick<CampaignReader, 'fileProblems' | 'fileWarnings'>,
  options: { batchSize: number; currency?: string; maxCost?: number },
): Plan {
  const part = tally.part;
  const ucs2Chars = tally.ucs2.listed();
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
    sentBy: part.sentBy,
    alreadySent: part.alreadySent,
    fileProblems,
    warnings: part.braced ? [...fileWarnings, bracedWarning(part.braced)] : fileWarnings,
    malformed: part.malformed,
    malformedRows: part.malformedRows,
    invalidRecords: part.invalidRecords,
    invalidByField: part.invalidByField,
    batches: Math.ceil(part.valid / options.batchSize),
    batchSize: options.batchSize,
    segments: part.segments,
    segmentsByEncoding: part.segmentsByEncoding,
    messagesByEncoding: part.messagesByEncoding,
    ucs2Chars,
    ucs2CharCount: tally.ucs2.chars.size,
    ...(part.normalized ? { normalized: part.normalized } : {}),
    premiumTotal: part.premiumTotal,
    premiumMessages: part.premiumMessages,
    samples: part.samples,
    ...(tally.repeats?.mode === 'count' ? { repeats: tally.repeats.count() } : {}),
  };
  if (part.normalizable) plan.normalizable = part.normalizable;
  if (tally.cost) plan.cost = tally.cost.estimate(options);
  return plan;
}

/**
 * Texts of a text column with a word in single braces no column is near, sent as written: one
 * warning for them all, in the words a --text template's gets (with --strict each is invalid).
 */
function bracedWarning({ records, first }: NonNullable<PlanCounts['braced']>): FileProblem {
  const { name, line } = first;
  const which =
    records === 1
      ? `the text on line ${line}`
      : `${formatRecords(records)}' texts, the first on line ${line},`;
  return {
    file: first.file,
    message:
      `${which} ${records === 1 ? 'has' : 'have'} {${name}}${records === 1 ? '' : ' or another word in single braces'}, which ${records === 1 ? 'its recipient gets' : 'their recipients get'} ` +
      `as written (a column's value is {{column}}; write \\{${name}} to say the braces are meant; --strict refuses them)`,
  };
}

function formatRecords(n: number): string {
  return `${n.toLocaleString('en-US')} records`;
}
