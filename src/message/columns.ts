// Which column holds what: recipient and text detection, message-field columns, CustomData.<key> columns.
import { nearestName } from '../shared/nearest.js';
import type { Template } from './template.js';

/** RestSmsMessageReq fields a column may set, by their lower-case name. */
export const MESSAGE_FIELDS = [
  'Gateway',
  'OriginatorAddress',
  'DestinationAddress',
  'Price',
  'MessageType',
  'ValidationPeriod',
  'MessageId',
  'UserDataHeader',
  'UserData',
  'Category',
  'CustomData',
  'DeliveryReportUrl',
  'ServiceCode',
  'ServiceDescription',
] as const;
export type MessageField = (typeof MESSAGE_FIELDS)[number];

const FIELD_BY_LOWER = new Map<string, MessageField>(
  MESSAGE_FIELDS.map((f) => [f.toLowerCase(), f]),
);

export const RECIPIENT_COLUMNS = [
  'to',
  'phone',
  'msisdn',
  'mobile',
  'number',
  'recipient',
  'destinationaddress',
];
export const TEXT_COLUMNS = ['text', 'message', 'body', 'userdata'];

export const CUSTOM_DATA_PREFIX = 'customdata.';

/** How a record's columns map onto a message; computed once per header (or per JSON record). */
export interface ColumnPlan {
  /** Column holding the recipient, if any. */
  to?: string;
  /** Column holding the text, when no --text template is used. */
  text?: string;
  /** Columns that set a message field directly (recipient and text excluded). */
  fields: [column: string, field: MessageField][];
  /** Columns named CustomData.<key>. */
  custom: [column: string, key: string][];
}

export interface Mapping {
  to?: string;
  text?: string;
}

/** Finds a column by name, exact first, then case-insensitively. */
export function findColumn(columns: readonly string[], name: string): string | undefined {
  if (columns.includes(name)) return name;
  const lower = name.toLowerCase();
  return columns.find((c) => c.toLowerCase() === lower);
}

function firstOf(columns: readonly string[], candidates: readonly string[]): string | undefined {
  for (const candidate of candidates) {
    const found = columns.find((c) => c.trim().toLowerCase() === candidate);
    if (found !== undefined) return found;
  }
  return undefined;
}

export function planColumns(
  columns: readonly string[],
  mapping: Mapping,
  useTemplate: boolean,
): ColumnPlan {
  const to =
    mapping.to !== undefined
      ? findColumn(columns, mapping.to)
      : firstOf(columns, RECIPIENT_COLUMNS);
  const text = useTemplate
    ? undefined
    : mapping.text !== undefined
      ? findColumn(columns, mapping.text)
      : firstOf(columns, TEXT_COLUMNS);
  const fields: ColumnPlan['fields'] = [];
  const custom: ColumnPlan['custom'] = [];
  for (const column of columns) {
    if (column === to || column === text) continue;
    const lower = column.trim().toLowerCase();
    if (lower.startsWith(CUSTOM_DATA_PREFIX) && lower.length > CUSTOM_DATA_PREFIX.length) {
      custom.push([column, column.trim().slice(CUSTOM_DATA_PREFIX.length)]);
      continue;
    }
    const field = FIELD_BY_LOWER.get(lower);
    // The destination and text come only from their detected columns (or the template), never twice.
    if (field && field !== 'DestinationAddress' && field !== 'UserData') {
      fields.push([column, field]);
    }
  }
  return { to, text, fields, custom };
}

/** A problem with a whole file (a missing column), found before any of its records. */
export interface FileProblem {
  file: string;
  message: string;
}

/** Problems with a file's columns as a whole: no recipient, no text, a template's column missing. */
export function checkColumns(
  file: string,
  columns: readonly string[],
  plan: ColumnPlan,
  options: { mapping: Mapping; template?: Template },
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
        const near = nearestName(name, columns);
        const hint = near === undefined ? '' : `: did you mean {{${near}}}?`;
        problems.push({
          file,
          message: `the text template uses {{${name}}} but there is no column "${name}"${hint}; columns are: ${list}`,
        });
      }
    }
  }
  return problems;
}
