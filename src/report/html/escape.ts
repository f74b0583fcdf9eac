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

/**
 * A number as the page masks it (`+47••••••67`, `••••12`, `••••••••er`): its calling code, the
 * dots, and the two characters it keeps.
 */
const MASKED = /\+?\d{0,3}•+[^\s•]{0,2}/g;

/**
 * Text for an element's content: each masked number in a span that never breaks across lines, as
 * a table's narrow column would otherwise break it anywhere (`+47••••••1` above `2`).
 */
function unbroken(text: string): string {
  let out = '';
  let last = 0;
  for (const found of text.matchAll(MASKED)) {
    out += `${escapeHtml(text.slice(last, found.index))}<span class="nb">${escapeHtml(found[0])}</span>`;
    last = found.index + found[0].length;
  }
  return out + escapeHtml(text.slice(last));
}

function part(value: Part, content: boolean): string {
  if (value === undefined) return '';
  if (value instanceof Markup) return value.html;
  // Numbers are the page's own (counts, coordinates, times); texts may carry a recipient's number.
  if (typeof value === 'string') {
    const masked = maskNumbers(value);
    return content ? unbroken(masked) : escapeHtml(masked);
  }
  if (typeof value === 'number') return String(value);
  return value.map((m) => m.html).join('');
}

/** Whether the markup so far leaves its next text in an element's content, not inside a tag. */
function inContent(markup: string): boolean {
  return markup.lastIndexOf('<') <= markup.lastIndexOf('>');
}

/** A tagged template that escapes and masks its texts; `spans` keeps masked numbers whole. */
function template(spans: boolean) {
  return (strings: TemplateStringsArray, ...values: Part[]): Markup => {
    let out = strings[0]!;
    values.forEach((value, i) => {
      out += part(value, spans && inContent(out)) + strings[i + 1]!;
    });
    return new Markup(out);
  };
}

/**
 * `html\`<td>${text}</td>\``: every interpolated text escaped and its numbers masked, so no call
 * site can forget to; in an element's content a masked number is one unbreakable span.
 */
export const html = template(true);

/**
 * The same for markup where an HTML span may not stand: inside SVG (a span ends the SVG there)
 * and the document's `<title>` (which shows markup as text).
 */
export const plain = template(false);
