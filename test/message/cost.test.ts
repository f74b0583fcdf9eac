// Segments and cost by calling code: the calling code of an MSISDN, the price that applies, and the
// plan's estimate at the GSM-7 (160/153) and UCS-2 (70/67) segment boundaries.
import { describe, expect, it } from 'vitest';
import type { PricePerSegment } from '../../src/message/cost.js';
import { buildMessage } from '../../src/message/build.js';
import type { BuiltRecord, CampaignReader } from '../../src/validate/types.js';
import { planColumns } from '../../src/message/columns.js';
import { callingCode, priceFor, roundMoney } from '../../src/message/cost.js';
import { analyzeText, segmentsWith, ucs2Chars } from '../../src/message/encoding.js';
import { planCampaign, type Plan } from '../../src/validate/plan.js';

describe('callingCode', () => {
  it.each([
    ['4741234567', '47'], // Norway
    ['46701234567', '46'], // Sweden
    ['4520123456', '45'], // Denmark
    ['358401234567', '358'], // Finland: three digits, though 35 is no code
    ['354612345', '354'], // Iceland
    ['14155552671', '1'], // NANP: the US, Canada and the rest share 1
    ['79123456789', '7'], // Russia and Kazakhstan share 7
    ['447911123456', '44'], // the UK
    ['882164567890', '882'], // non-geographic: asked of libphonenumber-js
  ])('%s → %s', (msisdn, code) => {
    expect(callingCode(msisdn)).toBe(code);
  });
});

describe('priceFor', () => {
  const map: PricePerSegment = { '47': 0.35, '46': 0.4, default: 0.5 };
  it.each<[string, PricePerSegment, string, number]>([
    ['one price for every code', 0.25, '47', 0.25],
    ['one price, another code', 0.25, '1', 0.25],
    ['a listed code', map, '47', 0.35],
    ['another listed code', map, '46', 0.4],
    ['a code not listed: the default', map, '358', 0.5],
    ['a free code', { '47': 0, default: 1 }, '47', 0],
  ])('%s', (_label, price, code, expected) => {
    expect(priceFor(price, code)).toBe(expected);
  });
});

describe('roundMoney', () => {
  it.each([
    [0.1 + 0.2, 0.3],
    [3 * 0.35, 1.05],
    [0.035 * 3, 0.105],
    [1234.5, 1234.5],
  ])('%d → %d', (amount, rounded) => {
    expect(roundMoney(amount)).toBe(rounded);
  });
});

/** A campaign of [recipient, text] records, built as the send command builds them. */
function reader(records: [string, string][]): CampaignReader {
  const columns = planColumns(['to', 'text'], {}, false);
  return {
    fileProblems: [],
    fileWarnings: [],
    async *records(): AsyncGenerator<BuiltRecord[]> {
      for (const [i, [to, text]] of records.entries()) {
        await Promise.resolve();
        const record = { row: i + 1, file: 'c.csv', line: i + 2, fields: { to, text } };
        yield [
          {
            record,
            built: buildMessage(record, columns, {
              settings: { defaults: { gateway: 99700999, price: 0, customData: {} } },
              campaignKey: 'abcdef0123',
              now: new Date(0),
            }),
          },
        ];
      }
    },
  };
}

function plan(records: [string, string][], pricePerSegment?: PricePerSegment): Promise<Plan> {
  return planCampaign(reader(records), { batchSize: 100, pricePerSegment, currency: 'NOK' });
}

describe('the estimate at the segment boundaries', () => {
  it.each<[string, string, number]>([
    // GSM-7: 160 septets in one segment, then parts of 153.
    ['160 GSM-7 characters', 'a'.repeat(160), 1],
    ['161 GSM-7 characters', 'a'.repeat(161), 2],
    ['306 GSM-7 characters', 'a'.repeat(306), 2],
    ['307 GSM-7 characters', 'a'.repeat(307), 3],
    ['80 euro signs (160 septets)', '€'.repeat(80), 1],
    ['81 euro signs (162 septets)', '€'.repeat(81), 2],
    // UCS-2: 70 units in one segment, then parts of 67.
    ['70 UCS-2 characters', 'ж'.repeat(70), 1],
    ['71 UCS-2 characters', 'ж'.repeat(71), 2],
    ['134 UCS-2 characters', 'ж'.repeat(134), 2],
    ['135 UCS-2 characters', 'ж'.repeat(135), 3],
    ['69 letters and an apostrophe: UCS-2', `${'a'.repeat(69)}’`, 1],
    ['70 letters and an apostrophe: UCS-2', `${'a'.repeat(70)}’`, 2],
  ])('%s: %i segments, each at the price of its code', async (_label, text, segments) => {
    const estimate = await plan(
      [
        ['+4741000001', text],
        ['+46701234567', text],
        ['+358401234567', text],
      ],
      { '47': 0.35, '46': 0.4, default: 0.5 },
    );
    expect(estimate.segments).toBe(3 * segments);
    expect(estimate.cost!.byCallingCode).toEqual([
      {
        callingCode: '358',
        messages: 1,
        segments,
        pricePerSegment: 0.5,
        cost: roundMoney(segments * 0.5),
      },
      {
        callingCode: '46',
        messages: 1,
        segments,
        pricePerSegment: 0.4,
        cost: roundMoney(segments * 0.4),
      },
      {
        callingCode: '47',
        messages: 1,
        segments,
        pricePerSegment: 0.35,
        cost: roundMoney(segments * 0.35),
      },
    ]);
    expect(estimate.cost!.total).toBe(roundMoney(segments * 1.25));
  });

  it('one number prices every code alike; sums carry no float dust', async () => {
    const estimate = await plan(
      [
        ['+4741000001', 'a'],
        ['+4741000002', 'b'],
        ['+14155552671', 'c'],
      ],
      0.1,
    );
    expect(estimate.cost).toEqual({
      currency: 'NOK',
      total: 0.3,
      byCallingCode: [
        { callingCode: '47', messages: 2, segments: 2, pricePerSegment: 0.1, cost: 0.2 },
        { callingCode: '1', messages: 1, segments: 1, pricePerSegment: 0.1, cost: 0.1 },
      ],
    });
  });

  it('counts only the records to send: an invalid one costs nothing', async () => {
    const estimate = await plan(
      [
        ['+4741000001', 'a'],
        ['+47123', 'not a number'],
      ],
      1,
    );
    expect(estimate.invalid).toBe(1);
    expect(estimate.cost!.total).toBe(1);
  });

  it('no price, no estimate', async () => {
    expect((await plan([['+4741000001', 'a']])).cost).toBeUndefined();
  });

  it('a character that forced UCS-2 costs what its records pay over their GSM-7 price', async () => {
    const estimate = await plan(
      [
        ['+4741000001', `${'a'.repeat(80)}’`],
        ['+46701234567', `${'a'.repeat(80)}’`],
        ['+4741000002', 'plain'],
      ],
      { '47': 0.35, default: 0.5 },
    );
    expect(estimate.ucs2Chars).toEqual([
      {
        char: '"’" (U+2019)',
        codePoint: 'U+2019',
        messages: 2,
        rows: [
          { row: 1, file: 'c.csv', line: 2, field: 'text' },
          { row: 2, file: 'c.csv', line: 3, field: 'text' },
        ],
        segments: 4,
        segmentsWithout: 2,
        replacement: "'",
        cost: 1.7,
        costWithout: 0.85,
      },
    ]);
    expect(estimate.normalizable).toEqual({
      messages: 2,
      characters: 2,
      segmentsSaved: 2,
      costSaved: 0.85,
    });
  });
});

describe('segmentsWith: what one character costs', () => {
  it.each<[string, string, string, string, number]>([
    // [label, text, character, replacement, segments with it replaced]
    ['the only one: the text becomes GSM-7', `${'a'.repeat(100)}’`, '’', "'", 1],
    ['another keeps the text UCS-2', `${'a'.repeat(100)}’ж`, '’', "'", 2],
    ['replacing it makes the text longer', `${'a'.repeat(66)}……ж`, '…', '...', 2],
    ['left out, the rest fits one part', `${'a'.repeat(68)}ж🎉`, '🎉', '', 1],
    // 66 | 🎉 + 65 | 1: the pair left behind may not be split, so three parts.
    [
      'a surrogate pair left behind is packed whole',
      `${'a'.repeat(66)}🎉ж${'a'.repeat(66)}`,
      'ж',
      '',
      3,
    ],
  ])('%s', (_label, text, ch, replacement, expected) => {
    const info = analyzeText(text);
    const found = ucs2Chars(text);
    expect(segmentsWith(text, info, found.size, ch, found.get(ch)!, replacement)).toBe(expected);
    // The shortcut agrees with counting the text itself.
    expect(analyzeText(text.replaceAll(ch, replacement)).segments).toBe(expected);
  });
});
