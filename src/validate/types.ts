// The words of the validation pass: what it is asked to read, what it yields record by record, and
// the counts a part of a campaign adds up to (plain data, so worker threads can send them).
import type { InputFile } from '../input/open.js';
import type { InputRecord } from '../input/types.js';
import type { Built, MessageSettings, RecordProblem } from '../message/build.js';
import type { FileProblem, Mapping } from '../message/columns.js';
import type { PricePerSegment } from '../message/cost.js';
import type { Encoding } from '../message/encoding.js';
import type { Suppression } from '../message/suppress.js';
import type { Template } from '../message/template.js';
import type { DlrSigner } from '../shared/dlr-proof.js';

export interface CampaignOptions {
  files: readonly InputFile[];
  inputFormat?: string;
  delimiter?: string;
  mapping: Mapping;
  template?: Template;
  /** How each message is built: the run's settings, one view. */
  message: MessageSettings;
  campaignKey: string;
  now: Date;
  /** Send only the first N valid records; later valid ones are skipped. */
  limit?: number;
  /** Skip a record whose recipient and text repeat an earlier one. */
  dedupe?: boolean;
  /** Skip a record whose recipient is on a suppression list (--suppress). */
  suppress?: Suppression;
  /**
   * Skip a record whose recipient a named campaign may have sent to (--skip-sent-by): its ID, and
   * the recipients as sorted MSISDN numbers.
   */
  sentBy?: readonly { id: string; numbers: Float64Array }[];
  /**
   * Campaigns related to this one (the same input path or report) and whom they may have sent to:
   * a record to one of those recipients is counted, not left out, so a refusal can say how many
   * would get a message twice.
   */
  seenBy?: readonly { id: string; numbers: Float64Array }[];
  /** Signs each DeliveryReportUrl; its key crosses to worker threads as a KeyObject, never as text. */
  dlrSigner?: DlrSigner;
  /** Large files are validated by worker threads: what those write (spool lines, digests). */
  parallel?: ParallelOptions;
  /** --strict: what looks like a mistake in the text ({name} for {{name}}) refuses the run. */
  strict?: boolean;
}

export interface BuiltRecord {
  record: InputRecord;
  built: Built;
  /** Why a valid record is not sent (--limit, --dedupe, --suppress). */
  skipped?: string;
  /** The suppression list that holds the recipient, when that is why it is skipped. */
  suppressedBy?: string;
  /** The campaign that may have sent to the recipient, when that is why it is skipped. */
  sentBy?: string;
  /** A related campaign that may have sent to the recipient of this record, to be sent. */
  seenBy?: string;
}

/**
 * What the campaign yields, in input order: records built here, or a part of a large file that a
 * worker thread validated (its plan counts and spool lines, rows already numbered).
 */
export type CampaignBatch = BuiltRecord[] | ChunkResult;

export interface CampaignReader {
  /** Problems with whole files, filled in as each file is opened. */
  readonly fileProblems: FileProblem[];
  /** What looks like a mistake in a file's use (a column in single braces), without --strict. */
  readonly fileWarnings: FileProblem[];
  records(): AsyncGenerator<CampaignBatch>;
}

export interface ParallelOptions extends ValidationWorkers {
  /** Workers write spool lines (a real run) and digests of valid records (repeats are counted). */
  spool: boolean;
  digests: boolean;
  /** What a worker's plan counts besides the basics: normalisation, the template, prices. */
  tally?: TallyOptions;
}

/** How many workers, from what size, on what parts of a file; defaults suit this machine. */
export interface ValidationWorkers {
  /** Files smaller than this are read on the main thread: below it, starting workers does not pay. */
  minBytes?: number;
  /** The size of the byte range a worker validates at a time. */
  chunkBytes?: number;
  workers?: number;
  /** The worker's module and Node options (the tests run it from the TypeScript sources). */
  worker?: { url: URL; execArgv?: string[] };
}

export interface ChunkResult {
  seq: number;
  records: number;
  plan: PlanPart;
  /** Digests of the valid records, four words each, when repeats are counted. */
  digests?: Int32Array;
  /**
   * The spool lines of the part as UTF-8 bytes, and the rows among them that are messages. Bytes,
   * not a string: they cross threads by transfer and leave no string of megabytes in either heap.
   */
  spool?: Uint8Array;
  messageRows?: Int32Array;
  /**
   * Digests of the user-given MessageIds of the part's valid records, four words each: the main
   * thread checks them across parts.
   */
  ids: Int32Array;
}

/** What a tally needs of the plan's options: a worker thread's tally gets the same, as plain data. */
export interface TallyOptions {
  gsmNormalize?: boolean;
  template?: string;
  pricePerSegment?: PricePerSegment;
}

/** What a plan counts, for the whole campaign as for a part of it. */
export interface PlanCounts {
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
  /** Records left out by --skip-sent-by, by the campaign that may have sent to the recipient. */
  sentBy: Record<string, number>;
  /** Records to send whose recipient a related campaign may have sent to, by that campaign. */
  alreadySent: Record<string, number>;
  /** Of the invalid records, the rows that could not be read (malformed CSV). */
  malformed: number;
  /** The first of those rows in input order (all of them up to the cap). */
  malformedRows: InvalidRecord[];
  /** The first other invalid records in input order (all of them up to the cap). */
  invalidRecords: InvalidRecord[];
  /** How many records failed for each reason, by field. */
  invalidByField: Record<string, number>;
  segments: number;
  segmentsByEncoding: Record<Encoding, number>;
  messagesByEncoding: Record<Encoding, number>;
  /** With --gsm-normalize: records whose text it changed, characters replaced, segments saved. */
  normalized?: NormalizeCounts;
  /** Without --gsm-normalize: what it would change, when it would change anything. */
  normalizable?: NormalizeCounts;
  /** Sum of Price over messages with Price > 0 (øre). */
  premiumTotal: number;
  premiumMessages: number;
  /** The first valid records to send, as the gateway will get them: for a person to eyeball. */
  samples: { row: number; to: string; text: string }[];
  /** Records to send whose text column's text has a word in single braces, and the first. */
  braced?: { records: number; first: { file: string; line: number; name: string } };
}

/** The counts of a plan for part of a campaign, as a worker thread sends them: plain data. */
export interface PlanPart extends PlanCounts {
  /** Characters that forced UCS-2, in order of first use. */
  ucs2: [string, Ucs2Char][];
  /** With a price per segment: messages and segments by calling code. */
  byCode: [string, CodeSums][];
}

/** Messages and their segments to one calling code. */
export interface CodeSums {
  messages: number;
  segments: number;
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

export interface InvalidRecord {
  row: number;
  file: string;
  line: number;
  problems: RecordProblem[];
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
