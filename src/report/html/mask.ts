// Recipients' numbers kept off the page, which is made to be passed around: the recipient column
// masked whole, and every number-like run in any other text the page shows (docs/report.md).
import { callingCode } from '../../message/cost.js';

/** A number as people write one: maybe after `+` or `00`, digits grouped by spaces or hyphens. */
const WRITTEN_NUMBER = /^(\+|00)?\d(?:[ -]?\d)*$/;

/**
 * A recipient as the page shows it, wherever it appears (a cell, a description, an error, a
 * title): a number keeps its `+`, its calling code and its last two digits, the rest as dots
 * (`+47••••••67`); any other value keeps only its last two characters, and one of four characters
 * or fewer none.
 */
export function maskRecipient(to: string): string {
  const written = WRITTEN_NUMBER.exec(to);
  if (written) {
    const digits = to.replace(/\D/g, '').replace(written[1] === '00' ? /^00/ : /^/, '');
    const code = callingCode(digits);
    // The calling code is shown only where enough digits stay hidden; a short number shows less.
    if (digits.length - code.length - 2 >= HIDDEN_AT_LEAST) {
      const plus = written[1] === '+' ? '+' : '';
      return `${plus}${code}${'•'.repeat(digits.length - code.length - 2)}${digits.slice(-2)}`;
    }
  }
  if (to.length <= 4) return '•'.repeat(to.length);
  return `${'•'.repeat(to.length - 2)}${to.slice(-2)}`;
}

/** Digits a masked number hides at the least when it shows its calling code. */
const HIDDEN_AT_LEAST = 4;

/**
 * A row's text (its description or error) with the row's own recipient masked, however short:
 * a value too short to look like a number is found as itself, standing alone.
 */
export function maskRecipientIn(text: string, to: string): string {
  const masked = maskNumbers(text);
  if (to.trim().length < 3) return masked;
  const alone = new RegExp(`(?<![\\w+])${to.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?!\\w)`, 'g');
  return masked.replace(alone, () => maskRecipient(to));
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
    return maskRecipient(token);
  });
}
