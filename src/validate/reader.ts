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
  /**
   * A word in single braces: a column's name (or close to one) refuses the run; any other is a
   * warning, or with --strict refuses it too.
   */
  const noteBraces = (file: string, columns: readonly string[]): void => {
    if (!options.template) return;
    for (const { file: at, message, refuse } of singleBraceProblems(
      file,
      columns,
      options.template,
    )) {
      if (refuse) fileProblems.push({ file: at, message });
      else if (options.strict) fileProblems.push({ file: at, message: `${message} (--strict)` });
      else fileWarnings.push({ file: at, message });
    }
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
