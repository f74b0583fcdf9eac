// The characters that forced UCS-2 in a campaign: in which records, what they cost, and what
// the same records would cost without them (or with --gsm-normalize's replacement).
import type { InputRecord, FieldValue } from '../input/types.js';
import type { Built } from '../message/build.js';
import { roundMoney } from '../message/cost.js';
import { describeChar, segmentsWith, ucs2Chars } from '../message/encoding.js';
import { gsmReplacement } from '../message/gsm-normalize.js';
import type { Ucs2Char } from './types.js';

/** Characters listed as having forced UCS-2 (a Chinese campaign has thousands): the costliest. */
const MAX_LISTED_CHARS = 50;

/** Rows listed for each such character: enough to find it in the file. */
const ROWS_PER_CHAR = 5;

type BuiltOk = Extract<Built, { ok: true }>;

export class Ucs2Tally {
  /** By character, in order of first use. */
  readonly chars = new Map<string, Ucs2Char>();

  /** `template`: the --text template's source, to tell its characters from a column's. */
  constructor(private readonly template: string | undefined) {}

  /** A UCS-2 record to send; `price` is a segment's price to its recipient, when priced. */
  add(record: InputRecord, built: BuiltOk, price: number | undefined): void {
    const { text } = built;
    const userData = built.message.UserData;
    const found = ucs2Chars(userData);
    for (const [ch, occurrences] of found) {
      let entry = this.chars.get(ch);
      if (!entry) {
        entry = ucs2Entry(ch, price !== undefined);
        this.chars.set(ch, entry);
      }
      const without = segmentsWith(
        userData,
        text,
        found.size,
        ch,
        occurrences,
        entry.replacement ?? '',
      );
      entry.messages++;
      entry.segments += text.segments;
      entry.segmentsWithout += without;
      if (price !== undefined) {
        entry.cost! += text.segments * price;
        entry.costWithout! += without * price;
      }
      if (entry.rows.length < ROWS_PER_CHAR) {
        entry.rows.push({
          row: record.row,
          file: record.file,
          line: record.line,
          field: fieldOf(ch, record, built.textColumn, this.template),
        });
      }
    }
  }

  /** The characters of the part of the campaign that comes next. */
  merge(next: readonly [string, Ucs2Char][]): void {
    for (const [ch, entry] of next) {
      const known = this.chars.get(ch);
      if (!known) {
        this.chars.set(ch, entry);
        continue;
      }
      known.messages += entry.messages;
      known.segments += entry.segments;
      known.segmentsWithout += entry.segmentsWithout;
      if (known.cost !== undefined) known.cost += entry.cost!;
      if (known.costWithout !== undefined) known.costWithout += entry.costWithout!;
      for (const row of entry.rows) {
        if (known.rows.length >= ROWS_PER_CHAR) break;
        known.rows.push(row);
      }
    }
  }

  /** The characters the plan lists, their costs rounded. */
  listed(): Ucs2Char[] {
    // The most records first; then what the character costs; then code point, so the order is stable.
    const listed = [...this.chars.values()]
      .sort(
        (a, b) =>
          b.messages - a.messages ||
          b.segments - b.segmentsWithout - (a.segments - a.segmentsWithout) ||
          a.codePoint.length - b.codePoint.length ||
          (a.codePoint < b.codePoint ? -1 : 1),
      )
      .slice(0, MAX_LISTED_CHARS);
    for (const entry of listed) {
      if (entry.cost !== undefined) entry.cost = roundMoney(entry.cost);
      if (entry.costWithout !== undefined) entry.costWithout = roundMoney(entry.costWithout);
    }
    return listed;
  }
}

function ucs2Entry(ch: string, priced: boolean): Ucs2Char {
  const replacement = gsmReplacement(ch);
  return {
    char: describeChar(ch),
    codePoint: codePoint(ch),
    messages: 0,
    rows: [],
    segments: 0,
    segmentsWithout: 0,
    ...(replacement !== undefined ? { replacement } : {}),
    ...(priced ? { cost: 0, costWithout: 0 } : {}),
  };
}

/** `U+2019`, `U+1F389` */
function codePoint(ch: string): string {
  return `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
}

/**
 * Where a character of the text comes from: the text column itself, else the template, else the
 * first column filled into a placeholder that holds it.
 */
function fieldOf(
  ch: string,
  record: InputRecord,
  textColumn: string | undefined,
  template: string | undefined,
): string {
  if (textColumn !== undefined && holds(record.fields[textColumn], ch)) return textColumn;
  if (textColumn === undefined && template?.includes(ch)) return 'template';
  for (const [name, value] of Object.entries(record.fields)) {
    if (name !== textColumn && holds(value, ch)) return name;
  }
  return textColumn ?? 'template';
}

function holds(value: FieldValue | undefined, ch: string): boolean {
  if (typeof value === 'string') return value.includes(ch);
  if (typeof value === 'object' && value !== null) return JSON.stringify(value).includes(ch);
  return false;
}
