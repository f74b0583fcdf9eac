// Reads every input of a campaign in order and builds each record; shared by the plan and the send pass.
import type { MessageDefaults } from '../config/settings.js';
import { createHash } from 'node:crypto';
import { detectFormat, openInput, type InputFile } from '../input/open.js';
import type { InputRecord } from '../input/types.js';
import { buildMessage, type Built } from './build.js';
import { planColumns, type ColumnPlan, type Mapping } from './columns.js';
import { suppressedReason, type Suppression } from './suppress.js';
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

export interface CampaignReader {
  /** Problems with whole files, filled in as each file is opened. */
  readonly fileProblems: FileProblem[];
  records(): AsyncGenerator<BuiltRecord>;
}

export function readCampaign(options: CampaignOptions): CampaignReader {
  const fileProblems: FileProblem[] = [];
  const seenIds = new Set<string>();
  const ctx = {
    defaults: options.defaults,
    country: options.country,
    template: options.template,
    campaignKey: options.campaignKey,
    now: options.now,
    gsmNormalize: options.gsmNormalize,
    maxSegments: options.maxSegments,
  };

  async function* records(): AsyncGenerator<BuiltRecord> {
    let row = 0;
    let valid = 0;
    // 16-byte digests, not the texts: memory stays modest even for a million records.
    const seen = options.dedupe ? new Set<string>() : undefined;
    for (const source of options.files) {
      const file = source.label;
      const format = detectFormat(file, options.inputFormat);
      const input = await openInput(source, format, { delimiter: options.delimiter });
      let plan: ColumnPlan | undefined;
      if (input.columns) {
        plan = planColumns(input.columns, options.mapping, options.template !== undefined);
        const problems = checkColumns(file, input.columns, plan, options);
        if (problems.length > 0) {
          // A missing column is the file's fault, not each record's: report it once, skip its records.
          fileProblems.push(...problems);
          continue;
        }
      }
      // JSON records may differ in keys, so their plan is made per distinct key set.
      const plans = new Map<string, ColumnPlan>();
      for await (const raw of input.records) {
        const record: InputRecord = {
          row: ++row,
          file: raw.file,
          line: raw.line,
          fields: raw.fields,
        };
        let recordPlan = plan;
        if (!recordPlan) {
          const keys = Object.keys(raw.fields);
          const signature = keys.join('\0');
          recordPlan = plans.get(signature);
          if (!recordPlan) {
            recordPlan = planColumns(keys, options.mapping, options.template !== undefined);
            if (plans.size < 1000) plans.set(signature, recordPlan);
          }
        }
        const built = buildMessage(record, recordPlan, ctx);
        if (built.ok && built.message.MessageId !== undefined && isUserId(recordPlan)) {
          const id = built.message.MessageId;
          if (seenIds.has(id)) {
            yield {
              record,
              built: {
                ok: false,
                to: built.to,
                messageId: id,
                text: built.text,
                problems: [{ field: 'MessageId', reason: `"${id}" is used by an earlier record` }],
              },
            };
            continue;
          }
          seenIds.add(id);
        }
        // Before --dedupe and --limit: a number that opted out takes no place among those sent.
        const list = built.ok ? options.suppress?.match(built.to) : undefined;
        if (list !== undefined) {
          yield { record, built, skipped: suppressedReason(list), suppressedBy: list };
          continue;
        }
        if (built.ok && seen) {
          const key = createHash('md5')
            .update(built.to)
            .update('\0')
            .update(built.message.UserData)
            .digest('base64');
          if (seen.has(key)) {
            yield {
              record,
              built,
              skipped: 'duplicate: an earlier record has the same recipient and text (--dedupe)',
            };
            continue;
          }
          seen.add(key);
        }
        if (built.ok && options.limit !== undefined && ++valid > options.limit) {
          yield { record, built, skipped: `beyond --limit ${options.limit}` };
          continue;
        }
        yield { record, built };
      }
    }
  }
  return { fileProblems, records };
}

function isUserId(plan: ColumnPlan): boolean {
  return plan.fields.some(([, field]) => field === 'MessageId');
}

function checkColumns(
  file: string,
  columns: readonly string[],
  plan: ColumnPlan,
  options: CampaignOptions,
): FileProblem[] {
  const problems: FileProblem[] = [];
  const list = columns.join(', ');
  if (plan.to === undefined) {
    problems.push({
      file,
      message: options.mapping.to
        ? `no column "${options.mapping.to}" for the recipient (--map to=${options.mapping.to}); columns are: ${list}`
        : `no recipient column: name one to, phone, msisdn, mobile, number, recipient or DestinationAddress, or use --map to=COLUMN; columns are: ${list}`,
    });
  }
  if (!options.template && plan.text === undefined) {
    problems.push({
      file,
      message: options.mapping.text
        ? `no column "${options.mapping.text}" for the text (--map text=${options.mapping.text}); columns are: ${list}`
        : `no text column: name one text, message, body or UserData, or give --text "TEMPLATE"; columns are: ${list}`,
    });
  }
  if (options.template) {
    const lower = new Set(columns.map((c) => c.toLowerCase()));
    for (const name of options.template.placeholders) {
      if (!lower.has(name.toLowerCase())) {
        problems.push({
          file,
          message: `the text template uses {{${name}}} but there is no column "${name}"; columns are: ${list}`,
        });
      }
    }
  }
  return problems;
}
