// Reads every input of a campaign in order and builds each record; shared by the plan and the send pass.
import type { MessageDefaults } from '../config/settings.js';
import { detectFormat, openInput, type InputFile } from '../input/open.js';
import type { InputRecord } from '../input/types.js';
import type { DlrSigner } from '../shared/dlr-proof.js';
import type { Built } from './build.js';
import { RecordChecker } from './checker.js';
import { checkColumns, planColumns, type ColumnPlan, type Mapping } from './columns.js';
import { ParallelReader, type ChunkResult, type ParallelOptions } from './parallel.js';
import type { Suppression } from './suppress.js';
import type { Template } from './template.js';

export interface CampaignOptions {
  files: readonly InputFile[];
  inputFormat?: string;
  delimiter?: string;
  mapping: Mapping;
  template?: Template;
  defaults: MessageDefaults;
  country?: string;
  campaignKey: string;
  now: Date;
  /** Send only the first N valid records; later valid ones are skipped. */
  limit?: number;
  /** Skip a record whose recipient and text repeat an earlier one. */
  dedupe?: boolean;
  /** Skip a record whose recipient is on a suppression list (--suppress). */
  suppress?: Suppression;
  /** --gsm-normalize: texts are sent with look-alikes outside GSM-7 replaced. */
  gsmNormalize?: boolean;
  /** --max-segments: a record whose text needs more is invalid. */
  maxSegments?: number;
  /** Signs each DeliveryReportUrl; its key crosses to worker threads as a KeyObject, never as text. */
  dlrSigner?: DlrSigner;
  /** Large files are validated by worker threads: what those write (spool lines, digests). */
  parallel?: ParallelOptions;
}

export interface BuiltRecord {
  record: InputRecord;
  built: Built;
  /** Why a valid record is not sent (--limit, --dedupe, --suppress). */
  skipped?: string;
  /** The suppression list that holds the recipient, when that is why it is skipped. */
  suppressedBy?: string;
}

/** A problem with a whole file (a missing column), found before any of its records. */
export interface FileProblem {
  file: string;
  message: string;
}

/**
 * What the campaign yields, in input order: records built here, or a part of a large file that a
 * worker thread validated (its plan counts and spool lines, rows already numbered).
 */
export type CampaignBatch = BuiltRecord[] | ChunkResult;

export interface CampaignReader {
  /** Problems with whole files, filled in as each file is opened. */
  readonly fileProblems: FileProblem[];
  records(): AsyncGenerator<CampaignBatch>;
}

export function readCampaign(options: CampaignOptions): CampaignReader {
  const fileProblems: FileProblem[] = [];

  async function* records(): AsyncGenerator<CampaignBatch> {
    const checker = new RecordChecker(options);
    const parallel = new ParallelReader(options, checker);
    try {
      for (const source of options.files) {
        const file = source.label;
        const format = detectFormat(file, options.inputFormat);
        const split = await parallel.split(source, format);
        if (split) {
          if (split.problems.length > 0) fileProblems.push(...split.problems);
          else yield* parallel.read(split);
          continue;
        }
        const input = await openInput(source, format, { delimiter: options.delimiter });
        let plan: ColumnPlan | undefined;
        if (input.columns) {
          plan = planColumns(input.columns, options.mapping, options.template !== undefined);
          const problems = checkColumns(file, input.columns, plan, options);
          if (problems.length > 0) {
            // A missing column is the file's fault, not each record's: report it once, skip its records.
            fileProblems.push(...problems);
            await input.close?.();
            continue;
          }
        }
        for await (const batch of input.records) {
          yield batch.map((record) => checker.check(record, plan));
        }
      }
    } finally {
      await parallel.close();
    }
  }
  return { fileProblems, records };
}
