// Recipients' numbers kept off the page, which is made to be passed around: the recipient column
// masked whole, and every number-like run in any other text the page shows (docs/report.md).
import { callingCode } from '../../message/cost.js';

/**
 * A recipient as the page shows it: calling code and last two digits, the rest as dots. Short or
 * odd values are masked whole but for their last two characters.
 */
export function maskRecipient(to: string): string {
  if (to.length <= 4) return '•'.repeat(to.length);
  const head = /^\d+$/.test(to) ? callingCode(to) : '';
  const tail = to.slice(-2);
  return `${head}${'•'.repeat(Math.max(1, to.length - head.length - 2))}${tail}`;
}

/**
 * A date or time (kept: the page names when things happened), or a phone number as people write
 * one: 7 to 15 digits, maybe after `+` or `00`, maybe grouped by single spaces or hyphens, not
 * part of a longer number. Letters may touch it (`+4520000001x` is a typo of a number).
 */
const DATE = String.raw`\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?`;
const PHONE = String.raw`(?<![\d+])(?:\+|00)?\d(?:[ -]?\d){6,14}(?!\d)`;
const NUMBER_LIKE = new RegExp(`(${DATE})|${PHONE}`, 'g');

/** A hexadecimal identifier (a campaign's ID, a hash): digits in it are no phone number. */
const HEX_ID = /^[\da-f]{12,}$/i;

/** The word around text[from, to): the letters and digits that touch it on either side. */
function wordAround(text: string, from: number, to: number): string {
  const before = /\w*$/.exec(text.slice(0, from))![0];
  const after = /^\w*/.exec(text.slice(to))![0];
  return before + text.slice(from, to) + after;
}

/** Every number in `text` that could be someone's phone masked as the recipient column is. */
export function maskNumbers(text: string): string {
  return text.replace(NUMBER_LIKE, (token: string, date: string | undefined, offset: number) => {
    if (date !== undefined) return token;
    const word = wordAround(text, offset, offset + token.length);
    if (HEX_ID.test(word) && /[a-f]/i.test(word)) return token;
    const plus = token.startsWith('+') ? '+' : '';
    return plus + maskRecipient(token.replace(/\D/g, '').replace(/^00/, ''));
  });
}
