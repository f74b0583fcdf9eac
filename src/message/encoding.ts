// GSM-7 / UCS-2 detection and segment counting, so the plan can say what a campaign will cost.

/** GSM 03.38 basic character set (the escape 0x1B excluded: it is not text). */
export const GSM7_BASIC_CHARS =
  '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà';
/** The extension table: each costs two septets (escape + char). */
export const GSM7_EXTENSION_CHARS = '^{}\\[~]|€\f';
const GSM7_BASIC = new Set(GSM7_BASIC_CHARS);
const GSM7_EXTENSION = new Set(GSM7_EXTENSION_CHARS);

export type Encoding = 'GSM-7' | 'UCS-2';

export interface TextInfo {
  encoding: Encoding;
  /** Characters as the service interface counts them (Unicode code points, docs/gateway.md#fields-and-their-limits). */
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
  return {
    encoding: 'UCS-2',
    characters,
    units: text.length,
    segments: ucs2Segments(text),
    ucs2Char,
  };
}

/**
 * UCS-2 segments of a text. A part may not split a surrogate pair, so a text with one is packed
 * per code point; without one, every part but the last is full.
 */
function ucs2Segments(text: string): number {
  const units = text.length;
  if (units <= UCS2_SINGLE) return 1;
  if (!SURROGATE.test(text)) return Math.ceil(units / UCS2_PART);
  return packSegments(
    Array.from(text, (ch) => ch.length),
    UCS2_PART,
  );
}
const SURROGATE = /[\uD800-\uDFFF]/;

/** Whether GSM-7 can carry the character (in its basic set or its extension table). */
export function isGsm7(ch: string): boolean {
  return GSM7_BASIC.has(ch) || GSM7_EXTENSION.has(ch);
}

/**
 * Each character of a UCS-2 text that GSM-7 cannot carry, with how often it occurs, in order of
 * first appearance: what the plan lists as having forced UCS-2.
 */
export function ucs2Chars(text: string): Map<string, number> {
  const found = new Map<string, number>();
  for (const ch of text) {
    if (GSM7_BASIC.has(ch) || GSM7_EXTENSION.has(ch)) continue;
    found.set(ch, (found.get(ch) ?? 0) + 1);
  }
  return found;
}

/**
 * Segments a UCS-2 text (`info`, holding `forcing` distinct characters outside GSM-7) would need
 * with each of its `count` occurrences of `ch` written as `replacement` instead: what that one
 * character costs. Another character outside GSM-7 keeps the text UCS-2, so only its length
 * changes, and that is worked out without building the text unless a surrogate pair is left.
 */
export function segmentsWith(
  text: string,
  info: TextInfo,
  forcing: number,
  ch: string,
  count: number,
  replacement: string,
): number {
  if (forcing === 1) return analyzeText(text.replaceAll(ch, replacement)).segments;
  const units = info.units + count * (replacement.length - ch.length);
  // Characters outside the BMP (two units each) that remain after the replacement.
  const pairs = info.units - info.characters - (ch.length === 2 ? count : 0);
  if (pairs > 0) return analyzeText(text.replaceAll(ch, replacement)).segments;
  return units <= UCS2_SINGLE ? 1 : Math.ceil(units / UCS2_PART);
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
