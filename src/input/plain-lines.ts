// Lines of a CSV file split by hand, exactly as csv-parse reads them, for the common case of
// plain fields and whole quoted fields on one line; anything else is left to csv-parse.
import { QUOTE } from './quotes.js';

/**
 * Whole lines as csv-parse reads them, or undefined as soon as one holds anything but plain
 * fields and whole quoted fields ("a, b", "say ""hi""") on the line: a quoted field that goes on
 * over the line break, a quote inside an unquoted field, text after a closing quote. Those lines
 * are csv-parse's to read, or to refuse with its own words.
 */
export function splitLines(
  text: string,
  delimiter: string,
): { rows: string[][]; lines: number } | undefined {
  const rows: string[][] = [];
  let from = 0;
  let lines = 0;
  while (from < text.length) {
    const at = text.indexOf('\n', from);
    const end = at === -1 ? text.length : at;
    const fields = splitLine(text.slice(from, end), delimiter);
    if (!fields) return undefined;
    rows.push(fields);
    if (at === -1) break;
    lines++;
    from = at + 1;
  }
  return { rows, lines };
}

function splitLine(line: string, delimiter: string): string[] | undefined {
  if (line.indexOf('"') === -1) return line.split(delimiter);
  const fields: string[] = [];
  const n = line.length;
  let i = 0;
  for (;;) {
    if (line.charCodeAt(i) === QUOTE) {
      let value = '';
      let from = i + 1;
      for (;;) {
        const q = line.indexOf('"', from);
        if (q === -1) return undefined;
        // Asked only inside the line: a read past its end made V8 throw away its optimised code.
        if (q + 1 < n && line.charCodeAt(q + 1) === QUOTE) {
          // A doubled quote inside a quoted field is one quote.
          value += line.slice(from, q + 1);
          from = q + 2;
          continue;
        }
        value += line.slice(from, q);
        i = q + 1;
        break;
      }
      fields.push(value);
      if (i === n) return fields;
      if (!line.startsWith(delimiter, i)) return undefined;
    } else {
      const d = line.indexOf(delimiter, i);
      const value = line.slice(i, d === -1 ? n : d);
      if (value.indexOf('"') !== -1) return undefined;
      fields.push(value);
      if (d === -1) return fields;
      i = d;
    }
    i += delimiter.length;
    if (i === n) {
      fields.push('');
      return fields;
    }
  }
}
