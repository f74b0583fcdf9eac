// Validation on worker threads gives byte for byte the plan, spool and errors of the main thread alone.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILT_IN_DEFAULTS } from '../../src/config/table.js';
import { readCampaign } from '../../src/validate/reader.js';
import type { CampaignOptions } from '../../src/validate/types.js';
import { planCampaign, type Plan } from '../../src/validate/plan.js';
import { compileTemplate } from '../../src/message/template.js';
import { entryOf } from '../../src/validate/entries.js';
import { spoolLine } from '../../src/validate/spool.js';
import { mobile, tempDir } from '../helpers/files.js';
import { VALIDATION_WORKER } from '../helpers/pipeline.js';

/** A valid record, or (every `bad`-th) one whose number is not a phone number. */
function to(i: number, bad: number): string {
  return i % bad === bad - 1 ? `12${i}` : mobile(i);
}

/** CRLF, a byte-order mark, quoted line breaks (CRLF inside quotes), blank lines, bad numbers. */
function crlfCsv(count: number): string {
  const lines = ['\uFEFFto,name,text'];
  for (let i = 0; i < count; i++) {
    if (i % 9 === 4) lines.push('');
    const text = i % 5 === 0 ? `"Hei {{name}},\r\nline ""two"" of ${i}"` : `Hello {{name}} ${i}`;
    lines.push(`${to(i, 7)},N${i},${text}`);
  }
  return `${lines.join('\r\n')}\r\n`;
}

/** LF, semicolons, user MessageIds that repeat across parts, a UCS-2 text now and then. */
function idsCsv(count: number): string {
  const lines = ['to;MessageId;text'];
  for (let i = 0; i < count; i++) {
    const id = i % 13 === 12 ? `id-${i - 40}` : `id-${i}`;
    lines.push(`${to(i, 11)};${id};"${i % 6 === 0 ? 'Привет' : 'Hi'}\n${i}"`);
  }
  return `${lines.join('\n')}\n`;
}

/** NDJSON with keys that vary, blank lines, a record without a recipient, and no final newline. */
function ndjson(count: number): string {
  const lines: string[] = [];
  for (let i = 0; i < count; i++) {
    if (i % 8 === 3) lines.push('');
    if (i % 17 === 5) lines.push(JSON.stringify({ text: `no recipient ${i}` }));
    else if (i % 2) lines.push(JSON.stringify({ to: to(i, 9), text: `Hi ${i}`, Category: 'x' }));
    else lines.push(JSON.stringify({ phone: to(i, 9), message: `Hei ${i}` }));
  }
  return lines.join('\n');
}

/** The spool lines and the plan of a campaign, or the error it is refused with. */
async function validate(
  options: CampaignOptions,
): Promise<{ plan?: Plan; spool: string; toSend: number[]; error?: string }> {
  const spool: string[] = [];
  const toSend: number[] = [];
  try {
    const plan = await planCampaign(readCampaign(options), {
      batchSize: 10,
      // As the send command does: the workers' plans count what the main thread's does.
      ...options.parallel?.tally,
      currency: 'NOK',
      countRepeats: options.parallel?.digests,
      // As the send command does: without a spool, records are not turned into lines.
      onRecord: options.parallel?.spool
        ? (record) => {
            const entry = entryOf(record);
            if (entry.kind === 'message') toSend.push(entry.row);
            spool.push(spoolLine(entry));
            return undefined;
          }
        : undefined,
      onSpool: (lines, rows) => {
        spool.push(Buffer.from(lines).toString('utf8'));
        toSend.push(...rows);
        return undefined;
      },
    });
    return { plan, spool: spool.join(''), toSend };
  } catch (error) {
    // A refused run keeps nothing it spooled, so only the error is compared.
    return { spool: '', toSend: [], error: (error as Error).message };
  }
}

describe('validation on worker threads', () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  const path = (name: string) => join(dir.path, name);

  beforeAll(async () => {
    dir = await tempDir();
    await writeFile(path('crlf.csv'), crlfCsv(300));
    await writeFile(path('ids.csv'), idsCsv(300));
    await writeFile(path('records.ndjson'), ndjson(300));
    await writeFile(path('no-text.csv'), 'to,name\n4741000001,A\n');
    // Typographic apostrophes and dashes (normalisable), and Swedish numbers (another price).
    const typo = Array.from(
      { length: 300 },
      (_, i) =>
        `${i % 3 ? mobile(i) : `46701${String(1_000_000 + i).slice(1)}`},"it’s ${i} – ok${i % 7 ? '' : ' Привет'}"`,
    );
    await writeFile(path('typo.csv'), `to,text\n${typo.join('\n')}\n`);
    // Errors that end the run, each in the middle of the file, so in some part but the first.
    const rows = (n: number) =>
      Array.from({ length: n }, (_, i) => `${mobile(i)},"Hi\n${i}"`).join('\n');
    await writeFile(path('fields.csv'), `to,text\n${rows(150)}\n4741000001,a,b\n${rows(50)}\n`);
    await writeFile(path('open-quote.csv'), `to,text\n${rows(150)}\n4741000001,"never closed\n`);
    await writeFile(
      path('utf8.csv'),
      Buffer.concat([
        Buffer.from(`to,text\n${rows(150)}\n4741000001,caf`),
        Buffer.from([0xe9]),
        Buffer.from(`\n${rows(50)}\n`),
      ]),
    );
    await writeFile(path('bad.ndjson'), `${ndjson(150)}\n{"to": 1,\n${ndjson(20)}\n`);
  });
  afterAll(() => dir.remove());

  const base = (names: string[], extra: Partial<CampaignOptions> = {}): CampaignOptions => ({
    files: names.map((name) => ({ path: path(name), label: `in/${name}` })),
    mapping: {},
    message: { defaults: { gateway: Number(BUILT_IN_DEFAULTS.gateway), price: 0, customData: {} } },
    campaignKey: 'testcampai',
    now: new Date('2026-01-01T00:00:00Z'),
    ...extra,
  });

  /** Single-threaded, then on two workers with parts of `chunkBytes`: the same in every byte. */
  async function same(options: CampaignOptions, chunkBytes: number, spool = true, workers = 2) {
    const parallel = { spool, digests: !spool, minBytes: 0, chunkBytes };
    const alone = await validate({ ...options, parallel: { ...parallel, workers: 0 } });
    const split = await validate({
      ...options,
      parallel: { ...parallel, workers, worker: { url: VALIDATION_WORKER } },
    });
    expect(split).toEqual(alone);
    return alone;
  }

  it('gives the same plan and spool for CRLF, BOM, quoted line breaks, NDJSON and several files', async () => {
    const files = ['crlf.csv', 'records.ndjson', 'no-text.csv', 'ids.csv', 'crlf.csv'];
    const template = { template: undefined };
    // Parts of a few records each: boundaries fall next to every kind of record.
    const result = await same(base(files, template), 200);
    expect(result.error).toBeUndefined();
    expect(result.plan!.invalid).toBeGreaterThan(40);
    expect(result.plan!.fileProblems).toHaveLength(1);
    expect(result.plan!.invalidByField.MessageId).toBeGreaterThan(5);
    expect(result.spool).toContain('\\r\\nline \\"two\\" of 5');
    // A dry run: no spool, repeats counted from the workers' digests (crlf.csv is read twice).
    const dry = await same(base(files), 333, false);
    expect(dry.plan!.repeats).toBeGreaterThan(200);
  });

  it.each([false, true])(
    'lists UCS-2 characters with their rows, costs by calling code and normalisation the same way (--gsm-normalize %s)',
    async (gsmNormalize) => {
      const tally = { gsmNormalize, pricePerSegment: { '47': 0.35, default: 0.5 } };
      const options = base(['typo.csv', 'ids.csv']);
      options.message.gsmNormalize = gsmNormalize;
      const parallel = { spool: true, digests: false, minBytes: 0, chunkBytes: 300, tally };
      const alone = await validate({ ...options, parallel: { ...parallel, workers: 0 } });
      const split = await validate({
        ...options,
        parallel: { ...parallel, workers: 2, worker: { url: VALIDATION_WORKER } },
      });
      expect(split).toEqual(alone);
      const plan = alone.plan!;
      expect(plan.ucs2Chars.map((c) => c.codePoint)).toContain('U+041F');
      expect(plan.ucs2Chars.find((c) => c.codePoint === 'U+041F')!.rows).toHaveLength(5);
      expect(plan.cost!.byCallingCode.map((c) => c.callingCode).sort()).toEqual(['46', '47']);
      if (gsmNormalize) expect(plan.normalized!.messages).toBeGreaterThan(200);
      else expect(plan.normalizable!.messages).toBeGreaterThan(200);
    },
  );

  it('fills a --text template and numbers rows after earlier files the same way', async () => {
    const options = base(['records.ndjson', 'crlf.csv'], {
      template: compileTemplate('{{name}}: {{text}}'),
    });
    await same(options, 97);
  });

  it('refuses a column in single braces in NDJSON, read by workers or not, from its first record', async () => {
    // The first record has phone and message; {mesage} is close to message.
    const result = await same(
      base(['records.ndjson'], { template: compileTemplate('Hi {mesage}') }),
      200,
      false,
    );
    expect(result.plan!.fileProblems).toEqual([
      {
        file: 'in/records.ndjson',
        message:
          'the text has {mesage}, which would go to every recipient as written: did you mean {{message}}? (to send the braces as written, write \\{mesage})',
      },
    ]);
  });

  it("counts a text column's words in single braces across parts, and --strict makes each invalid", async () => {
    // 6,000 records, every 1,000th text with a word in single braces no column is near.
    const lines = Array.from(
      { length: 6000 },
      (_, i) => `${mobile(i)},N${i},${i % 1000 === 999 ? `Code {ABC${i}} now` : `Hi \\{x} ${i}`}`,
    );
    await writeFile(path('braced.csv'), `to,name,text\n${lines.join('\n')}\n`);
    const relaxed = await same(base(['braced.csv']), 20_000, false);
    expect(relaxed.plan!.valid).toBe(6000);
    expect(relaxed.plan!.warnings).toEqual([
      {
        file: 'in/braced.csv',
        message:
          "6 records' texts, the first on line 1001, have {ABC999} or another word in single braces, " +
          "which their recipients get as written (a column's value is {{column}}; write \\{ABC999} " +
          'to say the braces are meant; --strict refuses them)',
      },
    ]);
    const strict = await same(base(['braced.csv'], { strict: true }), 20_000, false);
    expect(strict.plan!.invalid).toBe(6);
    expect(strict.plan!.warnings).toEqual([]);
    expect(strict.plan!.invalidRecords.map((r) => r.line)).toEqual([
      1001, 2001, 3001, 4001, 5001, 6001,
    ]);
  });

  it.concurrent.for(['fields.csv', 'open-quote.csv', 'utf8.csv', 'bad.ndjson'])(
    'refuses %s with the same file:line error',
    async (name) => {
      // One worker is enough to cross the parts' boundaries, and starts in half the time.
      const result = await same(base(['crlf.csv', name]), 256, true, 1);
      // A CSV row that cannot be read is an invalid record of its own, with its line, and the
      // reading goes on; other faults end it with their file:line.
      if (name === 'fields.csv' || name === 'open-quote.csv') {
        expect(result.error).toBeUndefined();
        expect(result.plan!.malformedRows.map((r) => `${r.file}:${r.line}`)).toEqual([
          `in/${name}:302`,
        ]);
      } else expect(result.error).toMatch(new RegExp(`^in/${name.replace('.', '\\.')}:\\d+: `));
    },
  );
});
