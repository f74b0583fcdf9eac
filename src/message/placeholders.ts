// What looks like a mistyped placeholder: a column name in single braces ({name}, sent as written)
// and a {{placeholder}} with no column but a column close to it (did you mean {{name}}?).
import { nearestName } from '../shared/nearest.js';
import type { Template } from './template.js';

/** `{{name}}` placeholders and `\{{`, `\{` escapes: what is left of a template is sent as written. */
const PLACEHOLDERS = /\\\{\{?|\{\{\s*[^{}]+?\s*\}\}/g;
/** One pair of single braces around a word or a few: `{name}`, `{ first name }`. */
const SINGLE = /\{\s*([\p{L}\p{N}_.-][\p{L}\p{N}_. -]*?)\s*\}/gu;

/** The names in single braces a template sends as written, in order, each once. */
export function singleBraced(source: string): string[] {
  const literal = source.replace(PLACEHOLDERS, ' ');
  return [...new Set([...literal.matchAll(SINGLE)].map((m) => m[1]!))];
}

/** A word in single braces: refused when it is (or is close to) a column, else a warning. */
export interface BraceProblem {
  file: string;
  message: string;
  /** A column's name, or close to one: the text would go out with a typo in it. */
  refuse: boolean;
}

/**
 * A template's single-braced names: sms-send sends `{name}` as written (only `{{name}}` is a
 * placeholder), which is rarely what was meant. One that is a column, or one or two edits from
 * one, is a typo to refuse; any other is worth a warning. `\{name}` says the braces are meant.
 */
export function singleBraceProblems(
  file: string,
  columns: readonly string[],
  template: Template,
): BraceProblem[] {
  return singleBraced(template.source).map((name) => ({
    file,
    ...braceProblem(name, columns, 'every recipient'),
  }));
}

/**
 * One word in single braces, judged as a template's are: a column's name (or one close to it) is
 * a typo to refuse, any other a warning. `who` gets it as written: a template's every recipient,
 * or a text column's record's own.
 */
export function braceProblem(
  name: string,
  columns: readonly string[],
  who: 'every recipient' | 'its recipient',
): Omit<BraceProblem, 'file'> {
  const column = nearestName(name, columns);
  return column === undefined
    ? {
        refuse: false,
        message: `the text has {${name}}, which ${who} gets as written (a column's value is {{column}}; write \\{${name}} to say the braces are meant)`,
      }
    : {
        refuse: true,
        message: `the text has {${name}}, which would go to ${who} as written: did you mean {{${column}}}? (to send the braces as written, write \\{${name}})`,
      };
}
