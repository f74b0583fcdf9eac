// Text from inputs, gateways and file names made safe for an HTML page: escaped, well formed, and
// with every number that could be a recipient's masked.
import { maskNumbers } from './mask.js';

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/**
 * A lone surrogate (from a JSON `\ud800` escape) cannot be written as UTF-8, and C0 controls other
 * than tab and newlines are parse errors in HTML: both become U+FFFD, as in the report itself.
 */
const ILL_FORMED =
  // eslint-disable-next-line no-control-regex -- control characters are what it finds
  /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]|[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/g;

/** Text for an element's content or a quoted attribute value. */
export function escapeHtml(text: string): string {
  return text.replace(ILL_FORMED, '\uFFFD').replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

/** A tagged template whose interpolations are escaped, except those already marked as markup. */
export class Markup {
  constructor(readonly html: string) {}
  toString(): string {
    return this.html;
  }
}

type Part = string | number | Markup | undefined | readonly Markup[];

function part(value: Part): string {
  if (value === undefined) return '';
  if (value instanceof Markup) return value.html;
  // Numbers are the page's own (counts, coordinates, times); texts may carry a recipient's number.
  if (typeof value === 'number') return String(value);
  if (typeof value === 'string') return escapeHtml(maskNumbers(value));
  return value.map((m) => m.html).join('');
}

/**
 * `html\`<td>${text}</td>\``: every interpolated text escaped and its numbers masked, so no call
 * site can forget to.
 */
export function html(strings: TemplateStringsArray, ...values: Part[]): Markup {
  let out = strings[0]!;
  values.forEach((value, i) => {
    out += part(value) + strings[i + 1]!;
  });
  return new Markup(out);
}
