// What looks like a mistyped placeholder: a column name in single braces ({name}, sent as written)
// and a {{placeholder}} with no column but a column close to it (did you mean {{name}}?).
import type { Template } from './template.js';

/**
 * Edits (insert, delete, replace, swap two neighbours) between `a` and `b`, case-insensitive;
 * stops counting past `limit` and answers `limit + 1`.
 */
export function editDistance(a: string, b: string, limit = Infinity): number {
  const s = a.toLowerCase();
  const t = b.toLowerCase();
  if (Math.abs(s.length - t.length) > limit) return limit + 1;
  // Three rows of the optimal-string-alignment table: two back for the swap.
  let before = new Array<number>(t.length + 1).fill(0);
  let previous = Array.from({ length: t.length + 1 }, (_, j) => j);
  let current = new Array<number>(t.length + 1).fill(0);
  for (let i = 1; i <= s.length; i++) {
    current[0] = i;
    let best = i;
    for (let j = 1; j <= t.length; j++) {
      const cost = s[i - 1] === t[j - 1] ? 0 : 1;
      let d = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && s[i - 1] === t[j - 2] && s[i - 2] === t[j - 1]) {
        d = Math.min(d, before[j - 2]! + 1);
      }
      current[j] = d;
      best = Math.min(best, d);
    }
    if (best > limit) return limit + 1;
    [before, previous, current] = [previous, current, before];
  }
  return previous[t.length]!;
}

/** How far a name may be from a column to be taken for it: one edit, two from five letters on. */
function allowance(name: string): number {
  return name.length >= 5 ? 2 : 1;
}

/** The column `name` is most likely meant to be (itself, whatever its case, first), if any. */
export function nearestColumn(name: string, columns: readonly string[]): string | undefined {
  const lower = name.toLowerCase();
  const same = columns.find((c) => c.toLowerCase() === lower);
  if (same !== undefined) return same;
  let best: string | undefined;
  let bestDistance = allowance(name) + 1;
  for (const column of columns) {
    const d = editDistance(name, column, allowance(name));
    if (d < bestDistance) {
      best = column;
      bestDistance = d;
    }
  }
  return best;
}

/** `{{name}}` placeholders and `\{{` escapes: what is left of a template is sent as written. */
const PLACEHOLDERS = /\\\{\{|\{\{\s*[^{}]+?\s*\}\}/g;
/** One pair of single braces around a word or a few: `{name}`, `{ first name }`. */
const SINGLE = /\{\s*([\p{L}\p{N}_.-][\p{L}\p{N}_. -]*?)\s*\}/gu;

/** The names in single braces a template sends as written, in order, each once. */
export function singleBraced(source: string): string[] {
  const literal = source.replace(PLACEHOLDERS, ' ');
  return [...new Set([...literal.matchAll(SINGLE)].map((m) => m[1]!))];
}

/**
 * A template's single-braced names that are a column, or close to one: sms-send sends `{name}`
 * as written (only `{{name}}` is a placeholder), which is rarely what was meant.
 */
export function singleBraceProblems(
  file: string,
  columns: readonly string[],
  template: Template,
): { file: string; message: string }[] {
  const problems: { file: string; message: string }[] = [];
  for (const name of singleBraced(template.source)) {
    const column = nearestColumn(name, columns);
    if (column === undefined) continue;
    problems.push({
      file,
      message: `the text has {${name}}, which is sent as written to every recipient: did you mean {{${column}}}?`,
    });
  }
  return problems;
}
