// GSM-7 / UCS-2 detection and segment counting, so the plan can say what a campaign will cost.

// GSM 03.38 basic character set (the escape 0x1B excluded: it is not text).
const GSM7_BASIC = new Set(
  '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà',
);
// The extension table: each costs two septets (escape + char).
const GSM7_EXTENSION = new Set('^{}\\[~]|€\f');

export type Encoding = 'GSM-7' | 'UCS-2';

export interface TextInfo {
  encoding: Encoding;
  /** Characters as the contract counts them (Unicode code points). */
  characters: number;
  /** Septets for GSM-7, UTF-16 code units for UCS-2. */
  units: number;
  segments: number;
  /** The first character that forced UCS-2, when it did. */
  ucs2Char?: string;
}

const GSM7_SINGLE = 160;
const GSM7_PART = 153;
const UCS2_SINGLE = 70;
const UCS2_PART = 67;

// Printable ASCII that GSM-7 holds in one septet: everything but ` and the extension characters.
const GSM7_PLAIN_ASCII = /^[\n\r !"#$%&'()*+,\-./0-9:;<=>?@A-Z_a-z]*$/;

export function analyzeText(text: string): TextInfo {
  // The common case, plain ASCII text, is one septet per character.
  if (GSM7_PLAIN_ASCII.test(text)) {
    const segments = text.length <= GSM7_SINGLE ? 1 : Math.ceil(text.length / GSM7_PART);
    return { encoding: 'GSM-7', characters: text.length, units: text.length, segments };
  }
  let septets = 0;
  let characters = 0;
  let ucs2Char: string | undefined;
  const costs: number[] = [];
  for (const ch of text) {
    characters++;
    if (ucs2Char !== undefined) continue;
    const cost = GSM7_BASIC.has(ch) ? 1 : GSM7_EXTENSION.has(ch) ? 2 : 0;
    if (cost === 0) {
      ucs2Char = ch;
      continue;
    }
    septets += cost;
    costs.push(cost);
  }
  if (ucs2Char === undefined) {
    const segments = septets <= GSM7_SINGLE ? 1 : packSegments(costs, GSM7_PART);
    return { encoding: 'GSM-7', characters, units: septets, segments };
  }
  // UCS-2 parts may not split a surrogate pair, so count per code point.
  const unitCosts = Array.from(text, (ch) => ch.length);
  const units = text.length;
  const segments = units <= UCS2_SINGLE ? 1 : packSegments(unitCosts, UCS2_PART);
  return { encoding: 'UCS-2', characters, units, segments, ucs2Char };
}

/** Greedy packing: an escape pair or surrogate pair is never split across two parts. */
function packSegments(costs: readonly number[], capacity: number): number {
  let segments = 1;
  let used = 0;
  for (const cost of costs) {
    if (used + cost > capacity) {
      segments++;
      used = 0;
    }
    used += cost;
  }
  return segments;
}

/** Renders a character so a terminal user can see it (emoji as is, invisible ones as U+XXXX). */
export function describeChar(ch: string): string {
  const code = ch.codePointAt(0) ?? 0;
  const hex = `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
  return /\p{L}|\p{N}|\p{P}|\p{S}/u.test(ch) ? `"${ch}" (${hex})` : hex;
}
