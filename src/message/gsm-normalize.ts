// The one table --gsm-normalize replaces characters from: look-alikes outside GSM-7 → their GSM-7 form.
// docs/cost-and-consent.md#--gsm-normalize shows this table; a test keeps the two equal.
import { analyzeText, type TextInfo } from './encoding.js';

/** One row of the table: every character in `from` is sent as `to`. */
export interface Replacement {
  /** What the row is about, as docs/cost-and-consent.md names it. */
  what: string;
  /** The characters replaced (each a code point), none of them GSM-7. */
  from: readonly string[];
  /** What each is sent as: GSM-7 basic characters only, or '' (removed). */
  to: string;
}

const chars = (...codes: number[]): string[] => codes.map((code) => String.fromCodePoint(code));
const range = (first: number, last: number): string[] =>
  Array.from({ length: last - first + 1 }, (_, i) => String.fromCodePoint(first + i));

/**
 * Only what keeps the meaning: typography (quotes, dashes, spaces, bullets) and the few letters
 * whose GSM-7 form is the same letter (a ligature spelt out, or the other case of a letter GSM-7
 * has in one case only). Accents are never dropped: á, â, ã, ð, þ, ł … stay as they are (and the
 * text stays UCS-2), because without them words change meaning (Icelandic, Spanish, Polish).
 * æøåÆØÅäöÄÖüÜéÉñÑßàèìòùÇ are GSM-7 already and never touched.
 */
export const GSM_NORMALIZE_TABLE: readonly Replacement[] = [
  {
    what: 'typographic single quotes, apostrophes and primes',
    // ‘ ’ ‚ ‛ ′ ‹ › ´ ` ʼ
    from: chars(0x2018, 0x2019, 0x201a, 0x201b, 0x2032, 0x2039, 0x203a, 0x00b4, 0x0060, 0x02bc),
    to: "'",
  },
  {
    what: 'typographic double quotes, double primes and guillemets',
    // “ ” „ ‟ ″ « »
    from: chars(0x201c, 0x201d, 0x201e, 0x201f, 0x2033, 0x00ab, 0x00bb),
    to: '"',
  },
  {
    what: 'hyphens, dashes and the minus sign',
    // ‐ ‑ ‒ – — ― −
    from: chars(0x2010, 0x2011, 0x2012, 0x2013, 0x2014, 0x2015, 0x2212),
    to: '-',
  },
  {
    what: 'bullets and the middle dot',
    // • ‣ ◦ ⁃ ∙ ·
    from: chars(0x2022, 0x2023, 0x25e6, 0x2043, 0x2219, 0x00b7),
    to: '-',
  },
  { what: 'the ellipsis', from: chars(0x2026), to: '...' },
  {
    what: 'tab, no-break and other spaces',
    // tab, no-break space, en quad … hair space, narrow no-break, medium mathematical, ideographic
    from: [...chars(0x0009, 0x00a0), ...range(0x2000, 0x200a), ...chars(0x202f, 0x205f, 0x3000)],
    to: ' ',
  },
  { what: 'line and paragraph separators', from: chars(0x2028, 0x2029), to: '\n' },
  {
    what: 'invisible characters',
    from: chars(0x200b, 0x2060, 0xfeff, 0x00ad),
    to: '',
  },
  { what: 'the ligature ﬀ', from: chars(0xfb00), to: 'ff' },
  { what: 'the ligature ﬁ', from: chars(0xfb01), to: 'fi' },
  { what: 'the ligature ﬂ', from: chars(0xfb02), to: 'fl' },
  { what: 'the ligature ﬃ', from: chars(0xfb03), to: 'ffi' },
  { what: 'the ligature ﬄ', from: chars(0xfb04), to: 'ffl' },
  { what: 'the ligatures ﬅ and ﬆ', from: chars(0xfb05, 0xfb06), to: 'st' },
  { what: 'ç, which GSM-7 has only as capital Ç', from: chars(0x00e7), to: 'Ç' },
  { what: 'À, which GSM-7 has only as small à', from: chars(0x00c0), to: 'à' },
  { what: 'È, which GSM-7 has only as small è', from: chars(0x00c8), to: 'è' },
  { what: 'Ì, which GSM-7 has only as small ì', from: chars(0x00cc), to: 'ì' },
  { what: 'Ò, which GSM-7 has only as small ò', from: chars(0x00d2), to: 'ò' },
  { what: 'Ù, which GSM-7 has only as small ù', from: chars(0x00d9), to: 'ù' },
];

const REPLACEMENTS: ReadonlyMap<string, string> = new Map(
  GSM_NORMALIZE_TABLE.flatMap(({ from, to }) => from.map((ch) => [ch, to] as const)),
);

/** Every character of the table, in one class (none is a regex metacharacter inside [...] but `-`, escaped). */
const ANY = new RegExp(
  `[${[...REPLACEMENTS.keys()].map((ch) => `\\u{${ch.codePointAt(0)!.toString(16)}}`).join('')}]`,
  'gu',
);
const ANY_ONE = new RegExp(ANY.source, 'u');

/** What --gsm-normalize sends a character as, or undefined when the table has no row for it. */
export function gsmReplacement(ch: string): string | undefined {
  return REPLACEMENTS.get(ch);
}

/** The text with every character of the table replaced, and how many were. */
export function replaceFromTable(text: string): { text: string; replaced: number } {
  if (!ANY_ONE.test(text)) return { text, replaced: 0 };
  let replaced = 0;
  const out = text.replace(ANY, (ch) => {
    replaced++;
    return REPLACEMENTS.get(ch)!;
  });
  return { text: out, replaced };
}

/** A text as --gsm-normalize sends it. */
export interface Normalized {
  text: string;
  info: TextInfo;
  /** Characters replaced (0: the text is sent as it was). */
  replaced: number;
  /** Segments the replacement saved (0 or more). */
  segmentsSaved: number;
}

/**
 * Replaces from the table only when that makes the text GSM-7 at no more segments: a text that
 * still needs UCS-2 (an emoji, Cyrillic) gains nothing from losing its typography, and could even
 * cost more (… is one UCS-2 unit but three septets). Otherwise the text is sent as it is.
 */
export function normalizeForGsm(text: string, info: TextInfo): Normalized {
  const unchanged = { text, info, replaced: 0, segmentsSaved: 0 };
  if (info.encoding === 'GSM-7') return unchanged;
  const candidate = replaceFromTable(text);
  if (candidate.replaced === 0) return unchanged;
  const after = analyzeText(candidate.text);
  if (after.encoding !== 'GSM-7' || after.segments > info.segments) return unchanged;
  return {
    text: candidate.text,
    info: after,
    replaced: candidate.replaced,
    segmentsSaved: info.segments - after.segments,
  };
}
