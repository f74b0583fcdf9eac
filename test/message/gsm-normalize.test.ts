// --gsm-normalize's one table: each entry maps as documented (here and in docs/cost-and-consent.md), GSM-7 text is never touched.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  analyzeText,
  GSM7_BASIC_CHARS,
  GSM7_EXTENSION_CHARS,
  isGsm7,
} from '../../src/message/encoding.js';
import {
  GSM_NORMALIZE_TABLE,
  gsmReplacement,
  normalizeForGsm,
  replaceFromTable,
} from '../../src/message/gsm-normalize.js';

/** The table as documented: [code point, what it is sent as], written out by hand. */
const DOCUMENTED: [number, string][] = [
  [0x2018, "'"], // ‘ left single quotation mark
  [0x2019, "'"], // ’ right single quotation mark, the typographic apostrophe
  [0x201a, "'"], // ‚ single low-9 quotation mark
  [0x201b, "'"], // ‛ single high-reversed-9 quotation mark
  [0x2032, "'"], // ′ prime
  [0x2039, "'"], // ‹ single left-pointing angle quotation mark
  [0x203a, "'"], // › single right-pointing angle quotation mark
  [0x00b4, "'"], // ´ acute accent, typed as an apostrophe
  [0x0060, "'"], // ` grave accent, typed as an apostrophe (ASCII, but not GSM-7)
  [0x02bc, "'"], // ʼ modifier letter apostrophe
  [0x201c, '"'], // “
  [0x201d, '"'], // ”
  [0x201e, '"'], // „
  [0x201f, '"'], // ‟
  [0x2033, '"'], // ″ double prime
  [0x00ab, '"'], // «
  [0x00bb, '"'], // »
  [0x2010, '-'], // ‐ hyphen
  [0x2011, '-'], // ‑ non-breaking hyphen
  [0x2012, '-'], // ‒ figure dash
  [0x2013, '-'], // – en dash
  [0x2014, '-'], // — em dash
  [0x2015, '-'], // ― horizontal bar
  [0x2212, '-'], // − minus sign
  [0x2022, '-'], // • bullet
  [0x2023, '-'], // ‣ triangular bullet
  [0x25e6, '-'], // ◦ white bullet
  [0x2043, '-'], // ⁃ hyphen bullet
  [0x2219, '-'], // ∙ bullet operator
  [0x00b7, '-'], // · middle dot
  [0x2026, '...'], // … ellipsis
  [0x0009, ' '], // tab
  [0x00a0, ' '], // no-break space
  ...Array.from({ length: 11 }, (_, i): [number, string] => [0x2000 + i, ' ']), // en quad … hair space
  [0x202f, ' '], // narrow no-break space
  [0x205f, ' '], // medium mathematical space
  [0x3000, ' '], // ideographic space
  [0x2028, '\n'], // line separator
  [0x2029, '\n'], // paragraph separator
  [0x200b, ''], // zero-width space
  [0x2060, ''], // word joiner
  [0xfeff, ''], // zero-width no-break space, byte order mark
  [0x00ad, ''], // soft hyphen
  [0xfb00, 'ff'],
  [0xfb01, 'fi'],
  [0xfb02, 'fl'],
  [0xfb03, 'ffi'],
  [0xfb04, 'ffl'],
  [0xfb05, 'st'],
  [0xfb06, 'st'],
  [0x00e7, 'Ç'], // ç: GSM-7 has the capital only
  [0x00c0, 'à'], // À: GSM-7 has the small letter only
  [0x00c8, 'è'],
  [0x00cc, 'ì'],
  [0x00d2, 'ò'],
  [0x00d9, 'ù'],
];

const hex = (code: number) => `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;

describe('the --gsm-normalize table', () => {
  it.each(DOCUMENTED.map(([code, to]) => [hex(code), code, to] as const))(
    '%s is sent as documented',
    (_label, code, to) => {
      const ch = String.fromCodePoint(code);
      expect(isGsm7(ch)).toBe(false);
      expect(gsmReplacement(ch)).toBe(to);
      expect(replaceFromTable(`a${ch}b`)).toEqual({ text: `a${to}b`, replaced: 1 });
      // What it becomes is GSM-7, and never an extension character (those cost two septets).
      for (const out of to) expect(GSM7_BASIC_CHARS).toContain(out);
    },
  );

  it('holds exactly the documented characters, each once', () => {
    const inTable = GSM_NORMALIZE_TABLE.flatMap((entry) => entry.from);
    expect(new Set(inTable).size).toBe(inTable.length);
    expect(inTable.map((ch) => ch.codePointAt(0)).sort((a, b) => a! - b!)).toEqual(
      DOCUMENTED.map(([code]) => code).sort((a, b) => a - b),
    );
  });

  it('never touches a GSM-7 character: the whole basic set and extension table', () => {
    const all = GSM7_BASIC_CHARS + GSM7_EXTENSION_CHARS;
    expect(replaceFromTable(all)).toEqual({ text: all, replaced: 0 });
    for (const ch of all) expect(gsmReplacement(ch)).toBeUndefined();
  });

  it.each([
    'æøåÆØÅäöÄÖüÜéÉñÑßàèìòùÇ',
    'Blåbærsyltetøy til Åse på Ærø',
    'Fältöversikt för Österåker; Müller, Señora',
    'Smørbrød 3,50 € {ok} [x] ~y | z ^ \\',
  ])('leaves %j (GSM-7, Nordic letters and all) exactly as it is', (text) => {
    expect(analyzeText(text).encoding).toBe('GSM-7');
    const info = analyzeText(text);
    expect(normalizeForGsm(text, info)).toEqual({ text, info, replaced: 0, segmentsSaved: 0 });
  });

  it.each(['á', 'â', 'ã', 'ð', 'þ', 'ł', 'š', 'ý', 'Ð', 'Þ', 'ő', 'ę'])(
    'never drops an accent that changes a word: %s stays',
    (ch) => {
      expect(gsmReplacement(ch)).toBeUndefined();
    },
  );
});

describe('normalizeForGsm', () => {
  it('makes a UCS-2 text GSM-7 and counts what it replaced and saved', () => {
    const text = `It’s “here” – at 10:00…${'x'.repeat(60)}`;
    const info = analyzeText(text);
    expect(info).toMatchObject({ encoding: 'UCS-2', segments: 2 });
    expect(normalizeForGsm(text, info)).toEqual({
      text: `It's "here" - at 10:00...${'x'.repeat(60)}`,
      info: analyzeText(`It's "here" - at 10:00...${'x'.repeat(60)}`),
      replaced: 5,
      segmentsSaved: 1,
    });
  });

  it('leaves a text that would stay UCS-2 as it is', () => {
    const text = 'It’s Привет';
    const info = analyzeText(text);
    expect(normalizeForGsm(text, info)).toMatchObject({ text, replaced: 0, segmentsSaved: 0 });
  });

  it('leaves a text that would need more segments as GSM-7 as it is (70 ellipses)', () => {
    // 70 UCS-2 units in one segment; 210 septets would be two.
    const text = '…'.repeat(70);
    expect(normalizeForGsm(text, analyzeText(text))).toMatchObject({ text, replaced: 0 });
    // 50 ellipses: 150 septets, one segment either way: replaced.
    const shorter = '…'.repeat(50);
    expect(normalizeForGsm(shorter, analyzeText(shorter))).toMatchObject({
      text: '.'.repeat(150),
      replaced: 50,
      segmentsSaved: 0,
    });
  });

  it('removes the invisible ones', () => {
    const text = '\uFEFFHei\u200B Kari\u00AD';
    expect(normalizeForGsm(text, analyzeText(text))).toMatchObject({
      text: 'Hei Kari',
      replaced: 3,
    });
  });
});

/** The rows of the table in docs/cost-and-consent.md's `--gsm-normalize` section: code points, sent as, what. */
function readmeTable(): { codes: number[]; to: string; what: string }[] {
  const readme = readFileSync(new URL('../../docs/cost-and-consent.md', import.meta.url), 'utf8');
  const start = readme.indexOf('## `--gsm-normalize`\n');
  expect(start).toBeGreaterThanOrEqual(0);
  const end = readme.indexOf('\n#', start + 10);
  const rows: { codes: number[]; to: string; what: string }[] = [];
  for (const line of readme.slice(start, end).split('\n')) {
    if (!line.startsWith('| U+')) continue;
    const [chars, to, what] = line
      .slice(2, -2)
      .split(' | ')
      .map((cell) => cell.trim());
    const codes: number[] = [];
    for (const [, first, last, shown] of chars!.matchAll(
      /U\+([0-9A-F]{4,5})(?:–U\+([0-9A-F]{4,5}))?(?: (\S+))?/g,
    )) {
      const from = parseInt(first!, 16);
      const through = last === undefined ? from : parseInt(last, 16);
      for (let code = from; code <= through; code++) codes.push(code);
      // A character shown beside its code point is that character.
      if (shown !== undefined && !shown.startsWith('(')) {
        expect(shown.replace(/,$/, ''), first).toBe(String.fromCodePoint(from));
      }
    }
    const sentAs: Record<string, string> = {
      'a space': ' ',
      'a line break': '\n',
      'nothing (removed)': '',
    };
    rows.push({ codes, to: sentAs[to!] ?? to!.replace(/^`(.*)`$/, '$1'), what: what! });
  }
  return rows;
}

describe('docs/cost-and-consent.md documents the table as it is', () => {
  it('row for row: the characters, what they are sent as, and what they are', () => {
    expect(readmeTable()).toEqual(
      GSM_NORMALIZE_TABLE.map((entry) => ({
        codes: entry.from.map((ch) => ch.codePointAt(0)),
        to: entry.to,
        what: entry.what,
      })),
    );
  });
});
