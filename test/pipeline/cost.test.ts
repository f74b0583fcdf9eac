// Cost you can see and text that stays cheap, in-process against the simulator: the encoding lint
// of the plan, --gsm-normalize as the simulator receives it, segments and cost by calling code,
// and --max-cost / --max-segments refusing before anything is sent.
import { access, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GSM_NORMALIZE_TABLE } from '../../src/message/gsm-normalize.js';
import { tempDir } from '../helpers/files.js';
import { runPipeline, type PipelineRun } from '../helpers/pipeline.js';

let dir: Awaited<ReturnType<typeof tempDir>>;

/** Runs `sms-send ARGS` in-process from the test's folder against a fresh simulator. */
function send(args: string[]): Promise<PipelineRun> {
  return runPipeline(args, { cwd: dir.path, workDir: dir.path });
}

/** Nothing reached the simulator and no report was written. */
async function nothingSent(run: PipelineRun): Promise<void> {
  expect(run.requests).toHaveLength(0);
  expect(run.messages).toHaveLength(0);
  await expect(access(run.report)).rejects.toThrow();
}

// 88 characters with one typographic apostrophe: 2 UCS-2 segments; with ' instead, 1 GSM-7 segment.
const TEMPLATE =
  'Hi {{name}}, it’s your turn: your parcel is ready at the counter. Bring ID; we close at 18.';
const CAMPAIGN = 'to,name\n+4741000001,Kari\n+4741000002,Ola\n+4741000003,Per\n+46701234567,Sven\n';

beforeAll(async () => {
  dir = await tempDir();
  await writeFile(join(dir.path, 'campaign.csv'), CAMPAIGN);
});
afterAll(async () => {
  await dir.remove();
});

describe('a typographic apostrophe in the template', () => {
  it('the dry run names the character, the rows it is in and the doubled cost', async () => {
    const run = await send([
      'campaign.csv',
      '--text',
      TEMPLATE,
      '--dry-run',
      '--price-per-segment',
      '0.5',
      '--currency',
      'NOK',
    ]);
    expect(run.error).toBeUndefined();
    await nothingSent(run);
    const plan = run.planJson!;
    expect(plan.segmentsByEncoding).toEqual({ 'GSM-7': 0, 'UCS-2': 8 });
    expect(plan.ucs2Chars).toEqual([
      {
        char: '"’" (U+2019)',
        codePoint: 'U+2019',
        messages: 4,
        rows: [1, 2, 3, 4].map((row) => ({
          row,
          file: 'campaign.csv',
          line: row + 1,
          field: 'template',
        })),
        segments: 8,
        segmentsWithout: 4,
        replacement: "'",
        cost: 4,
        costWithout: 2,
      },
    ]);
    expect(plan.ucs2CharCount).toBe(1);
    expect(plan.normalizable).toEqual({
      messages: 4,
      characters: 4,
      segmentsSaved: 4,
      costSaved: 2,
    });
    expect(plan.cost).toEqual({
      currency: 'NOK',
      total: 4,
      byCallingCode: [
        { callingCode: '47', messages: 3, segments: 6, pricePerSegment: 0.5, cost: 3 },
        { callingCode: '46', messages: 1, segments: 2, pricePerSegment: 0.5, cost: 1 },
      ],
    });
    const text = run.planText!;
    expect(text).toContain('UCS-2 forced by 1 character:');
    expect(text).toContain(
      `"’" (U+2019) in 4 records: 8 segments (4.00 NOK), 4 segments (2.00 NOK) with ' instead (--gsm-normalize)`,
    );
    expect(text).toContain(
      'campaign.csv:2 (template), campaign.csv:3 (template), campaign.csv:4 (template), …',
    );
    expect(text).toContain(
      '--gsm-normalize would send 4 records as GSM-7 (4 characters replaced): 4 segments fewer (2.00 NOK)',
    );
    expect(text).toMatch(/cost {8}4\.00 NOK estimated\n/);
  });

  it('with --gsm-normalize it is sent as GSM-7 at half the segments', async () => {
    const run = await send([
      'campaign.csv',
      '--text',
      TEMPLATE,
      '--gsm-normalize',
      '--price-per-segment',
      '0.5',
    ]);
    expect(run.error).toBeUndefined();
    expect(run.code).toBe(0);
    // The simulator got the normalised bytes, as single messages.
    expect(run.messages.map((m) => [m.UserData, m.MessageType])).toEqual(
      ['Kari', 'Ola', 'Per', 'Sven'].map((name) => [
        `Hi ${name}, it's your turn: your parcel is ready at the counter. Bring ID; we close at 18.`,
        '00',
      ]),
    );
    expect(run.plan!.segments).toBe(4);
    expect(run.plan!.normalized).toEqual({
      messages: 4,
      characters: 4,
      segmentsSaved: 4,
      costSaved: 2,
    });
    expect(run.plan!.cost!.total).toBe(2);
    expect(run.plan!.ucs2Chars).toEqual([]);
    expect(run.rows.map((r) => [r.outcome, r.segments, r.encoding, r.normalized])).toEqual(
      Array(4).fill(['accepted', '1', 'GSM-7', '1']),
    );
    expect(run.planText).toContain(
      'normalized  4 records (4 characters replaced by --gsm-normalize): 4 segments saved (2.00)',
    );
  });

  it('without --gsm-normalize the text is sent byte for byte, and the report has no normalized column', async () => {
    const run = await send(['campaign.csv', '--text', TEMPLATE]);
    expect(run.code).toBe(0);
    expect(run.messages.map((m) => [m.UserData, m.MessageType])).toEqual(
      ['Kari', 'Ola', 'Per', 'Sven'].map((name) => [TEMPLATE.replace('{{name}}', name), '11']),
    );
    expect(run.rows.map((r) => [r.segments, r.encoding])).toEqual(Array(4).fill(['2', 'UCS-2']));
    expect(Object.keys(run.rows[0]!)).not.toContain('normalized');
  });

  it('a normalised run is another campaign than the same content sent as it is', async () => {
    const plain = await send(['campaign.csv', '--text', TEMPLATE, '--dry-run']);
    const normalized = await send([
      'campaign.csv',
      '--text',
      TEMPLATE,
      '--dry-run',
      '--gsm-normalize',
    ]);
    expect(plain.planJson!.campaign).not.toBe(normalized.planJson!.campaign);
  });
});

describe('normalised texts arrive at the simulator as the table says', () => {
  // One record per character of the table, in a text that is otherwise plain GSM-7.
  const cases = GSM_NORMALIZE_TABLE.flatMap(({ from, to }) =>
    from.map((ch) => ({ text: `Hei${ch}Kari ${ch} ok`, sent: `Hei${to}Kari ${to} ok` })),
  );
  // And texts it must leave alone: GSM-7 (Nordic letters, the extension table), or still UCS-2.
  const untouched = [
    'Blåbærsyltetøy til Åse på Ærø: 3,50 € {ok} [x] ~y | z ^ \\ @£$¥èéùìòÇØøÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ¤§¿¡ÄÖÑÜäöñüà',
    'It’s here 🎉',
    'Привет — Kari',
  ];

  it('every character of the table, and nothing else', async () => {
    const records = [...cases.map((c) => c.text), ...untouched].map((text, i) =>
      JSON.stringify({ to: `47${41000100 + i}`, text }),
    );
    await writeFile(join(dir.path, 'table.ndjson'), `${records.join('\n')}\n`);
    const run = await send(['table.ndjson', '--gsm-normalize']);
    expect(run.error).toBeUndefined();
    expect(run.code).toBe(0);
    const received = new Map(run.messages.map((m) => [m.DestinationAddress, m.UserData]));
    const expected = [...cases.map((c) => c.sent), ...untouched];
    expect(expected.map((_, i) => received.get(Number(`47${41000100 + i}`)))).toEqual(expected);
    // The report counts what was replaced: two per changed record, none for the others.
    const counts = run.rows.map((r) => r.normalized);
    expect(counts).toEqual([...cases.map(() => '2'), ...untouched.map(() => '')]);
    expect(run.plan!.normalized).toMatchObject({
      messages: cases.length,
      characters: 2 * cases.length,
    });
  });
});

describe('segments and cost by calling code', () => {
  beforeAll(async () => {
    await writeFile(
      join(dir.path, 'priced.json'),
      JSON.stringify({
        pricePerSegment: { '47': 0.35, '+46': 0.4, default: 0.5 },
        currency: 'nok',
      }),
    );
    // Norway 1 + 2 segments, Sweden 3, Denmark and Finland (the default) 1 each; one invalid.
    const rows = [
      ['+4741000001', 'a'.repeat(160)],
      ['+4741000002', 'a'.repeat(161)],
      ['+46701234567', 'ж'.repeat(135)],
      ['+4520123456', 'ж'.repeat(70)],
      ['+358401234567', 'Hei'],
      ['+47123', 'not sent'],
    ];
    await writeFile(
      join(dir.path, 'countries.csv'),
      `to,text\n${rows.map((r) => r.join(',')).join('\n')}\n`,
    );
  });

  it('a map of prices with a default: each code its own price, the rest the default', async () => {
    const run = await send([
      'countries.csv',
      '--config',
      'priced.json',
      '--dry-run',
      '--skip-invalid',
      '--json',
    ]);
    expect(run.error).toBeUndefined();
    expect(run.planJson!.cost).toEqual({
      currency: 'NOK',
      // 3 × 0.35 + 3 × 0.4 + 1 × 0.5 + 1 × 0.5
      total: 3.25,
      byCallingCode: [
        { callingCode: '46', messages: 1, segments: 3, pricePerSegment: 0.4, cost: 1.2 },
        { callingCode: '47', messages: 2, segments: 3, pricePerSegment: 0.35, cost: 1.05 },
        { callingCode: '45', messages: 1, segments: 1, pricePerSegment: 0.5, cost: 0.5 },
        { callingCode: '358', messages: 1, segments: 1, pricePerSegment: 0.5, cost: 0.5 },
      ],
    });
    expect(run.planText).toMatch(/cost {8}3\.25 NOK estimated\n/);
    expect(run.planText).toMatch(/\+46 +1 message +3 segments +× 0\.40 +1\.20 NOK\n/);
  });

  it('one price for all, from the flag; the report has every record’s segments and encoding', async () => {
    const run = await send(['countries.csv', '--price-per-segment', '0.1', '--skip-invalid']);
    expect(run.code).toBe(1);
    expect(run.plan!.cost!.total).toBe(0.8);
    expect(run.rows.map((r) => [r.outcome, r.segments, r.encoding])).toEqual([
      ['accepted', '1', 'GSM-7'],
      ['accepted', '2', 'GSM-7'],
      ['accepted', '3', 'UCS-2'],
      ['accepted', '1', 'UCS-2'],
      ['accepted', '1', 'GSM-7'],
      ['invalid', '1', 'GSM-7'],
    ]);
  });
});

describe('--max-cost', () => {
  const args = ['campaign.csv', '--text', TEMPLATE, '--price-per-segment', '0.5'];

  it('refuses a campaign estimated above it: exit 2, the estimate and the limit, nothing sent', async () => {
    const run = await send([...args, '--currency', 'NOK', '--max-cost', '3.99']);
    expect(run.code).toBe(2);
    expect(run.error).toBe(
      'the estimated cost 4.00 NOK (8 segments of 4 messages) is more than --max-cost 3.99 NOK. Nothing was sent.\n' +
        '--gsm-normalize would send 4 records as GSM-7 and save 2.00 NOK; --dry-run shows the characters that forced UCS-2.',
    );
    await nothingSent(run);
  });

  it('lets a campaign within it go, and the dry run says so', async () => {
    const dry = await send([...args, '--max-cost', '4', '--dry-run']);
    expect(dry.error).toBeUndefined();
    expect(dry.planText).toContain('cost        4.00 estimated, within --max-cost 4.00');
    const run = await send([...args, '--max-cost', '4']);
    expect(run.code).toBe(0);
    expect(run.messages).toHaveLength(4);
  });

  it('the dry run shows a refusal too (exit 2)', async () => {
    const run = await send([...args, '--max-cost', '1', '--dry-run']);
    expect(run.code).toBe(2);
    expect(run.planText).toContain('cost        4.00 estimated, more than --max-cost 1.00');
    await nothingSent(run);
  });

  it('with --gsm-normalize the same campaign fits', async () => {
    const run = await send([...args, '--max-cost', '3', '--gsm-normalize']);
    expect(run.code).toBe(0);
    expect(run.messages).toHaveLength(4);
  });

  it('without a price per segment it is a usage error naming the missing setting', async () => {
    const run = await send(['campaign.csv', '--text', TEMPLATE, '--max-cost', '10']);
    expect(run.code).toBe(2);
    expect(run.error).toContain(
      '--max-cost: needs a price per segment to estimate the cost: set pricePerSegment in the config file, or pass --price-per-segment',
    );
    await nothingSent(run);
  });
});

describe('--max-segments', () => {
  beforeAll(async () => {
    await writeFile(
      join(dir.path, 'lengths.csv'),
      `to,text\n+4741000001,short\n+4741000002,${'a'.repeat(460)}\n+4741000003,${'ж'.repeat(135)}\n`,
    );
  });

  it('a record needing more is invalid, with its row and count: exit 2, nothing sent', async () => {
    const run = await send(['lengths.csv', '--max-segments', '3']);
    expect(run.code).toBe(2);
    expect(run.error).toContain(
      'lengths.csv:3: text: needs 4 segments, more than --max-segments 3',
    );
    expect(run.error).not.toContain('lengths.csv:4');
    await nothingSent(run);
  });

  it('with --skip-invalid the others are sent and the record is reported invalid', async () => {
    const run = await send(['lengths.csv', '--max-segments', '2', '--skip-invalid']);
    expect(run.code).toBe(1);
    expect(run.messages.map((m) => m.UserData)).toEqual(['short']);
    expect(run.rows.map((r) => [r.outcome, r.segments, r.encoding, r.error])).toEqual([
      ['accepted', '1', 'GSM-7', ''],
      [
        'invalid',
        '4',
        'GSM-7',
        'lengths.csv:3: text: needs 4 segments, more than --max-segments 2',
      ],
      [
        'invalid',
        '3',
        'UCS-2',
        'lengths.csv:4: text: needs 3 segments, more than --max-segments 2',
      ],
    ]);
  });
});
