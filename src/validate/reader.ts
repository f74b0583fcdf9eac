// Reads every input of a campaign in order and builds each record; shared by the plan and the send pass.
import { firstLine } from '../input/csv.js';
import { detectFormat, openInput } from '../input/open.js';
import {
  checkColumns,
  planColumns,
  type ColumnPlan,
  type FileProblem,
} from '../message/columns.js';
import { singleBraceProblems } from '../message/placeholders.js';
import { RecordChecker } from './checker.js';
import { ParallelReader } from './parallel.js';
import type { CampaignBatch, CampaignOptions, CampaignReader } from './types.js';

export function readCampaign(options: CampaignOptions): CampaignReader {
  const fileProblems: FileProblem[] = [];
  const fileWarnings: FileProblem[] = [];
  /** A column in single braces: a warning, or with --strict a problem that refuses the run. */
  const noteBraces = (file: string, columns: readonly string[]): void => {
    if (!options.template) return;
    const found = singleBraceProblems(file, columns, options.template);
    if (options.strict) {
      fileProblems.push(...found.map((p) => ({ ...p, message: `${p.message} (--strict)` })));
    } else fileWarnings.push(...found);
  };

  async function* records(): AsyncGenerator<CampaignBatch> {
    const checker = new RecordChecker(options);
    const parallel = new ParallelReader(options, checker);
    try {
      for (const source of options.files) {
        const file = source.label;
        const format = detectFormat(file, options.inputFormat);
        const split = await parallel.split(source, format);
        if (split) {
          if (split.columns) noteBraces(file, split.columns);
          // NDJSON read by worker threads: its first record's keys stand for its columns.
          else if (options.template) noteBraces(file, await firstKeys(source.path));
          if (split.problems.length > 0) fileProblems.push(...split.problems);
          else yield* parallel.read(split);
          continue;
        }
        const input = await openInput(source, format, { delimiter: options.delimiter });
        let plan: ColumnPlan | undefined;
        if (input.columns) {
          noteBraces(file, input.columns);
          plan = planColumns(input.columns, options.mapping, options.template !== undefined);
          const problems = checkColumns(file, input.columns, plan, options);
          if (problems.length > 0) {
            // A missing column is the file's fault, not each record's: report it once, skip its records.
            fileProblems.push(...problems);
            await input.close?.();
            continue;
          }
        }
        // JSON and NDJSON declare no columns: the first record's keys stand for them (as for NDJSON
        // read by worker threads).
        let keysSeen = input.columns !== undefined;
        for await (const batch of input.records) {
          if (!keysSeen && batch.length > 0) {
            keysSeen = true;
            noteBraces(file, Object.keys(batch[0]!.fields));
          }
          yield batch.map((record) => checker.check(record, plan));
        }
      }
    } finally {
      await parallel.close();
    }
  }
  return { fileProblems, fileWarnings, records };
}

/** The keys of an NDJSON file's first record; none when it does not parse (its reader says so). */
async function firstKeys(path: string): Promise<string[]> {
  try {
    const first: unknown = JSON.parse(await firstLine(path));
    return first !== null && typeof first === 'object' ? Object.keys(first) : [];
  } catch {
    return [];
  }
}
