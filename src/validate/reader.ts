// Reads every input of a campaign in order and builds each record; shared by the plan and the send pass.
import { detectFormat, openInput } from '../input/open.js';
import {
  checkColumns,
  planColumns,
  type ColumnPlan,
  type FileProblem,
} from '../message/columns.js';
import { RecordChecker } from './checker.js';
import { ParallelReader } from './parallel.js';
import type { CampaignBatch, CampaignOptions, CampaignReader } from './types.js';

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
