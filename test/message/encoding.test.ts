// analyzeText: GSM-7 vs UCS-2 detection and segment counts (160/153 septets, 70/67 UTF-16 units).
import { describe, expect, it } from 'vitest';
import { analyzeText, describeChar } from '../../src/message/encoding.js';

describe('analyzeText: GSM-7', () => {
  it.each([
    // [label, text, characters, septets, segments]
    ['empty text', '', 0, 0, 1],
    ['one character', 'a', 1, 1, 1],
    ['exactly 160 characters: one part', 'a'.repeat(160), 160, 160, 1],
    ['161 characters: 153 + 8', 'a'.repeat(161), 161, 161, 2],
    ['306 characters: 153 + 153', 'a'.repeat(306), 306, 306, 2],
    ['307 characters: 153 + 153 + 1', 'a'.repeat(307), 307, 307, 3],
    ['459 characters: 3 × 153', 'a'.repeat(459), 459, 459, 3],
    ['460 characters: 3 × 153 + 1', 'a'.repeat(460), 460, 460, 4],
    ['Norwegian letters are GSM-7', 'Blåbærsyltetøy ÆØÅ', 18, 18, 1],
    ['æøåÆØÅ one septet each', 'æøåÆØÅ', 6, 6, 1],
    ['160 Norwegian letters', 'æøå'.repeat(53) + 'Æ', 160, 160, 1],
    ['Greek capitals of the basic set', 'ΔΦΓΛΩΠΨΣΘΞ', 10, 10, 1],
    ['newline and carriage return', 'a\r\nb', 4, 4, 1],
    ['basic-set symbols', '@£$¥¤§¿¡_!"#%&\'()*+,-./:;<=>?', 29, 29, 1],
  ])('%s', (_label, text, characters, units, segments) => {
    expect(analyzeText(text)).toEqual({ encoding: 'GSM-7', characters, units, segments });
  });

  it.each(['^', '{', '}', '\\', '[', '~', ']', '|', '€'])(
    'extension character %j costs two septets',
    (ch) => {
      expect(analyzeText(`a${ch}b`)).toEqual({
        encoding: 'GSM-7',
        characters: 3,
        units: 4,
        segments: 1,
      });
    },
  );

  it.each([
    // 80 × 2 = 160 septets: still one part.
    ['80 euro signs', '€'.repeat(80), 80, 160, 1],
    // 81 × 2 = 162 septets > 160: 76 pairs (152) + 5 pairs (10).
    ['81 euro signs', '€'.repeat(81), 81, 162, 2],
    // 159 + 2 = 161 septets > 160: two parts although only 160 characters.
    ['159 letters and one euro (160 characters)', 'a'.repeat(159) + '€', 160, 161, 2],
    // 158 + 2 = 160 septets: one part.
    ['158 letters and one euro', 'a'.repeat(158) + '€', 159, 160, 1],
    // 152 + 2 + 152 = 306 septets; naive ceil(306/153) = 2, but the escape pair may not be split:
    // part 1 = 152 letters (the € would make 154), part 2 = € + 151 letters, part 3 = 1 letter.
    [
      'escape pair never split at a part boundary',
      'a'.repeat(152) + '€' + 'a'.repeat(152),
      305,
      306,
      3,
    ],
    // 153 × 2 = 306 = 2 × 153, yet each part holds 76 pairs (152): 76 + 76 + 1 pairs → 3 parts.
    ['153 braces', '{'.repeat(153), 153, 306, 3],
  ])('%s', (_label, text, characters, units, segments) => {
    expect(analyzeText(text)).toEqual({ encoding: 'GSM-7', characters, units, segments });
  });
});

describe('analyzeText: UCS-2', () => {
  it.each([
    // [label, text, characters, UTF-16 units, segments, forcing character]
    ['one Cyrillic letter', 'Ж', 1, 1, 1, 'Ж'],
    ['70 units: one part', 'a'.repeat(69) + 'Ж', 70, 70, 1, 'Ж'],
    ['71 units: 67 + 4', 'a'.repeat(70) + 'Ж', 71, 71, 2, 'Ж'],
    ['134 units: 67 + 67', 'Ж'.repeat(134), 134, 134, 2, 'Ж'],
    ['135 units: 67 + 67 + 1', 'Ж'.repeat(135), 135, 135, 3, 'Ж'],
    ['an emoji is one character but two units', '😀', 1, 2, 1, '😀'],
    ['68 letters + emoji = 70 units', 'a'.repeat(68) + '😀', 69, 70, 1, '😀'],
    ['69 letters + emoji = 71 units', 'a'.repeat(69) + '😀', 70, 71, 2, '😀'],
    // 66 + 2 + 66 = 134 units; the surrogate pair may not be split: 66 | 2 + 65 | 1 → 3 parts.
    ['surrogate pair never split', 'a'.repeat(66) + '😀' + 'a'.repeat(66), 133, 134, 3, '😀'],
    ['lower-case c cedilla is not in GSM-7', 'ç', 1, 1, 1, 'ç'],
    ['backtick is not in GSM-7', 'a`b', 3, 3, 1, '`'],
    ['curly quote is not in GSM-7', 'it’s', 4, 4, 1, '’'],
    ['names the first non-GSM character', 'Hei æøå Привет 😀', 16, 17, 1, 'П'],
    ['extension characters count one unit in UCS-2', '€€€Ж', 4, 4, 1, 'Ж'],
  ])('%s', (_label, text, characters, units, segments, ucs2Char) => {
    expect(analyzeText(text)).toEqual({ encoding: 'UCS-2', characters, units, segments, ucs2Char });
  });

  it('a 160-character text with one emoji costs 3 UCS-2 parts (161 units: 67 + 67 + 27)', () => {
    const info = analyzeText('a'.repeat(159) + '😀');
    expect(info).toEqual({
      encoding: 'UCS-2',
      characters: 160,
      units: 161,
      segments: 3,
      ucs2Char: '😀',
    });
  });
});

describe('describeChar', () => {
  it.each([
    ['😀', '"😀" (U+1F600)'],
    ['ç', '"ç" (U+00E7)'],
    ['Ж', '"Ж" (U+0416)'],
    ['’', '"’" (U+2019)'],
    ['`', '"`" (U+0060)'],
    ['\u200b', 'U+200B'],
    ['\u00a0', 'U+00A0'],
    ['\t', 'U+0009'],
    [' ', 'U+0020'],
  ])('%j → %s', (ch, expected) => {
    expect(describeChar(ch)).toBe(expected);
  });
});
