// Input and message correctness at the record level, in-process: every input format, every kind of
// bad input, validation before sending, and the dry-run plan, through the send command's pipeline
// against the in-process simulator. test/e2e/input.test.ts keeps what only the binary shows.
import { access, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { tempDir } from '../helpers/files.js';
import { runPipeline, type PipelineRun } from '../helpers/pipeline.js';
import {
  BAD_RECORDS_BY_FIELD,
  BAD_RECORDS_PROBLEMS,
  byField,
  firstLine,
  problemLines,
  startsWith,
} from '../helpers/problems.js';

/** Small fixtures live here; runs resolve inputs from it so errors name files briefly. */
const FIXTURES = fileURLToPath(new URL('../fixtures/input/', import.meta.url));
const MB = 1024 * 1024;

let dir: Awaited<ReturnType<typeof tempDir>>;

beforeAll(async () => {
  dir = await tempDir();
});
afterAll(async () => {
  await dir.remove();
});

/** Runs `sms-send ARGS` in-process from the fixtures folder against a fresh simulator and report. */
function send(args: string[], options: { stdin?: string } = {}): Promise<PipelineRun> {
  return runPipeline(args, { cwd: FIXTURES, workDir: dir.path, stdin: options.stdin });
}

function sentPairs(run: PipelineRun): [unknown, unknown][] {
  return run.messages.map((m) => [m.DestinationAddress, m.UserData]);
}

/** What a refused run left behind: its exit code, the simulator's traffic, whether a report exists. */
async function aftermath(run: PipelineRun) {
  return {
    code: run.code,
    requests: run.requests.length,
    accepted: run.messages.length,
    report: await access(run.report).then(
      () => true,
      () => false,
    ),
  };
}

/** A run refused before sending: exit 2, no request reached the simulator, no report. */
const NOTHING_SENT = { code: 2, requests: 0, accepted: 0, report: false };

/** The error the CLI prints after "sms-send: ", or '' when there was none. */
function errorOf(run: PipelineRun): string {
  return run.error ?? '';
}

describe.concurrent('every input format is read into the right messages', () => {
  const cases: { name: string; args: string[]; expected: [number, string][] }[] = [
    {
      name: 'CSV with a BOM, CRLF line ends, a blank line and a {{column}} in the text column',
      args: ['comma-bom-crlf.csv'],
      expected: [
        [4741234567, 'Hei Kari, your order is ready.'],
        [4791234567, 'Plain text'],
        [4790000001, 'Last row'],
      ],
    },
    {
      name: 'CSV with quoted fields holding newlines, blank lines and doubled quotes',
      args: ['quoted.csv'],
      expected: [
        [4741234567, 'Two\nlines'],
        [4741234568, 'He said "hi", twice'],
        [4741234569, 'Three\n\nparagraphs'],
      ],
    },
    {
      name: 'CSV with ; detected as the delimiter (commas inside the text)',
      args: ['semicolon.csv'],
      expected: [
        [4741234567, 'Hei Kari, velkommen!'],
        [4741234568, 'Comma, inside, text'],
      ],
    },
    {
      name: '.tsv file (tab delimiter)',
      args: ['tabs.tsv'],
      expected: [[4741234567, 'Tab separated, with; both']],
    },
    {
      name: '.csv file whose header is tab separated (tab detected)',
      args: ['tabs-in.csv'],
      expected: [[4741234568, 'Tabs detected in a .csv file']],
    },
    {
      name: '--delimiter for a delimiter that is not detected',
      args: ['pipes.txt', '--delimiter', '|'],
      expected: [[4741234569, 'Piped, with --delimiter']],
    },
    {
      name: 'JSON array (records with different keys, braces and quotes inside strings)',
      args: ['array.json'],
      expected: [
        [4741234567, 'Array {one} [two] "three"'],
        [4791234567, 'Numeric recipient'],
      ],
    },
    {
      name: 'JSON object with a Messages array (other keys ignored)',
      args: ['messages.json'],
      expected: [
        [4741234567, 'Hei Kari!'],
        [4791234567, 'With custom data'],
      ],
    },
    {
      name: 'NDJSON (.ndjson) with a blank line',
      args: ['records.ndjson'],
      expected: [
        [4741234567, 'First line record'],
        [46701234567, 'Swedish recipient'],
      ],
    },
    {
      name: 'JSON lines (.jsonl) with CRLF line ends',
      args: ['records.jsonl'],
      expected: [
        [4741234568, 'JSON lines'],
        [4741234569, 'CRLF endings'],
      ],
    },
  ];

  it.for(cases)('$name', async ({ args, expected }, { expect }) => {
    const run = await send(args);
    expect(run.error).toBeUndefined();
    expect(run.code).toBe(0);
    expect(sentPairs(run)).toEqual(expected);
    expect(run.rows.map((r) => r.outcome)).toEqual(expected.map(() => 'accepted'));
  });

  it('messages.json keeps the record CustomData object as sent', async ({ expect }) => {
    const run = await send(['messages.json']);
    expect(run.code).toBe(0);
    expect(run.messages[1]!.CustomData).toEqual({ qos: 1 });
    expect(run.messages[0]!.CustomData).toBeUndefined();
  });

  it.for([
    { format: 'csv', file: 'semicolon.csv', expected: [4741234567, 4741234568] },
    { format: 'json', file: 'messages.json', expected: [4741234567, 4791234567] },
    { format: 'ndjson', file: 'records.ndjson', expected: [4741234567, 46701234567] },
  ])(
    'reads - (stdin) with --input-format $format',
    async ({ format, file, expected }, { expect }) => {
      const stdin = await readFile(join(FIXTURES, file), 'utf8');
      const run = await send(['-', '--input-format', format], { stdin });
      expect(run.error).toBeUndefined();
      expect(run.code).toBe(0);
      expect(run.messages.map((m) => m.DestinationAddress)).toEqual(expected);
    },
  );

  it('names stdin "-" with the line of a bad record read from it', async ({ expect }) => {
    const stdin = '{"to":"4741234567","text":"ok"}\n\n{"to":"+4721234567","text":"fixed line"}\n';
    const run = await send(['-', '--input-format', 'ndjson'], { stdin });
    expect(await aftermath(run)).toEqual(NOTHING_SENT);
    expect(problemLines(errorOf(run))).toEqual([
      {
        at: '-:3',
        field: 'to',
        reason: '"+4721234567" is a fixed-line number, not a mobile number',
      },
    ]);
  });

  it('several input files form one campaign, rows numbered across the files', async ({
    expect,
  }) => {
    const run = await send(['campaign-a.csv', 'campaign-b.json', 'campaign-c.ndjson']);
    expect(run.error).toBeUndefined();
    expect(run.code).toBe(0);
    expect(sentPairs(run)).toEqual([
      [4741000001, 'A one'],
      [4741000002, 'A two'],
      [4741000003, 'B one'],
      [4741000004, 'B two'],
      [4741000005, 'C one'],
      [4741000006, 'C two'],
    ]);
    const rows = run.rows;
    expect(rows.map((r) => [r.row, r.to, r.outcome])).toEqual([
      ['1', '4741000001', 'accepted'],
      ['2', '4741000002', 'accepted'],
      ['3', '4741000003', 'accepted'],
      ['4', '4741000004', 'accepted'],
      ['5', '4741000005', 'accepted'],
      ['6', '4741000006', 'accepted'],
    ]);
    // Generated MessageIds: one campaign key for all files, then the campaign row.
    const key = rows[0]!.messageId!.split('-')[0]!;
    expect(key).toMatch(/^[0-9a-f]{10}$/);
    expect(rows.map((r) => r.messageId)).toEqual([1, 2, 3, 4, 5, 6].map((n) => `${key}-${n}`));
    expect(run.messages.map((m) => m.MessageId)).toEqual(rows.map((r) => r.messageId));
  });

  it('a bad record in a later file names that file and its own line, and keeps the campaign row', async ({
    expect,
  }) => {
    const stopped = await send(['campaign-a.csv', 'bad-records.json']);
    expect(await aftermath(stopped)).toEqual(NOTHING_SENT);
    expect(problemLines(errorOf(stopped)).map((p) => `${p.at}: ${p.field}`)).toEqual([
      'bad-records.json:4: to',
      'bad-records.json:8: UserDataHeader',
    ]);

    const skipping = await send(['campaign-a.csv', 'bad-records.json', '--skip-invalid']);
    expect(skipping.code).toBe(1);
    const rows = skipping.rows;
    expect(rows.map((r) => [r.row, r.outcome])).toEqual([
      ['1', 'accepted'],
      ['2', 'accepted'],
      ['3', 'accepted'],
      ['4', 'invalid'],
      ['5', 'invalid'],
    ]);
    expect(rows[3]!.error).toBe(
      'bad-records.json:4: to: "+4721234567" is a fixed-line number, not a mobile number',
    );
    expect(rows[4]!.error).toBe(
      'bad-records.json:8: UserDataHeader: must be hex (pairs of 0-9, A-F)',
    );
    expect(skipping.messages.map((m) => m.DestinationAddress)).toEqual([
      4741000001, 4741000002, 4741234567,
    ]);
  });
});

describe.concurrent(
  'bad input: refused (exit 2), the error names file and line, nothing reaches the simulator',
  () => {
    const cases: { name: string; args: string[]; at: string; says: string }[] = [
      {
        name: 'duplicate header column',
        args: ['bad-duplicate-header.csv'],
        at: 'bad-duplicate-header.csv:1',
        says: 'column "to" appears twice',
      },
      {
        name: 'invalid UTF-8 (Latin-1 Å) in CSV',
        args: ['bad-utf8.csv'],
        at: 'bad-utf8.csv:3',
        says: 'not valid UTF-8',
      },
      {
        name: 'invalid UTF-8 in JSON',
        args: ['bad-utf8.json'],
        at: 'bad-utf8.json:3',
        says: 'not valid UTF-8',
      },
      {
        name: 'invalid UTF-8 in NDJSON',
        args: ['bad-utf8.ndjson'],
        at: 'bad-utf8.ndjson:2',
        says: 'not valid UTF-8',
      },
      {
        name: 'JSON: a record that is not valid JSON',
        args: ['bad-json-syntax.json'],
        at: 'bad-json-syntax.json:3',
        says: 'malformed JSON',
      },
      {
        // A raw newline may not appear inside a JSON string: the error is on line 3, not at the end.
        name: 'JSON: a string never closed on its line names that line',
        args: ['bad-json-unclosed-string.json'],
        at: 'bad-json-unclosed-string.json:3',
        says: 'JSON',
      },
      {
        // A record over several lines: the line of the mistake, not of the record's start, and
        // no second line number from inside the record.
        name: 'JSON: a mistake inside a record of several lines names its own line',
        args: ['bad-json-multiline.json'],
        at: 'bad-json-multiline.json:5',
        says: 'malformed JSON: not a JSON value at "tru"',
      },
      {
        name: 'JSON: missing comma between records',
        args: ['bad-json-missing-comma.json'],
        at: 'bad-json-missing-comma.json:3',
        says: 'missing comma',
      },
      {
        name: 'JSON: a record that is not an object',
        args: ['bad-json-not-object.json'],
        at: 'bad-json-not-object.json:3',
        says: 'must be a JSON object',
      },
      {
        name: 'JSON: an object without a Messages array',
        args: ['bad-json-no-messages.json'],
        at: 'bad-json-no-messages.json:1',
        says: 'no "Messages" array',
      },
      {
        name: 'JSON: a document cut short',
        args: ['bad-json-truncated.json'],
        at: 'bad-json-truncated.json:4',
        says: 'ends before it is complete',
      },
      {
        name: 'NDJSON: a line that is not valid JSON',
        args: ['bad-ndjson-syntax.ndjson'],
        at: 'bad-ndjson-syntax.ndjson:3',
        says: 'malformed JSON',
      },
      {
        name: 'NDJSON: a line that is an array',
        args: ['bad-ndjson-array.ndjson'],
        at: 'bad-ndjson-array.ndjson:2',
        says: 'must be a JSON object',
      },
      {
        name: 'empty CSV file',
        args: ['bad-empty.csv'],
        at: 'bad-empty.csv',
        says: 'is empty',
      },
      {
        name: 'empty JSON file',
        args: ['bad-empty.json'],
        at: 'bad-empty.json:1',
        says: 'is empty',
      },
      {
        name: 'empty NDJSON file',
        args: ['bad-empty.ndjson'],
        at: 'bad-empty.ndjson',
        says: 'no records to send',
      },
      {
        name: 'CSV with a header only',
        args: ['bad-header-only.csv'],
        at: 'bad-header-only.csv',
        says: 'no records to send',
      },
      {
        name: 'missing recipient column',
        args: ['bad-missing-to.csv'],
        at: 'bad-missing-to.csv',
        says: 'no recipient column',
      },
      {
        name: 'missing text column',
        args: ['bad-missing-text.csv'],
        at: 'bad-missing-text.csv',
        says: 'no text column',
      },
      {
        name: 'wrong delimiter: none of , ; tab in the header',
        args: ['bad-unknown-delimiter.csv'],
        at: 'bad-unknown-delimiter.csv',
        says: 'columns are: to|text',
      },
      {
        name: 'wrong delimiter: --delimiter , on a ; file',
        args: ['semicolon.csv', '--delimiter', ','],
        at: 'semicolon.csv',
        says: 'columns are: phone;message;name',
      },
      {
        name: '--map to= a column that does not exist',
        args: ['mapping.csv', '--map', 'to=Telefon,text=Melding'],
        at: 'mapping.csv',
        says: 'no column "Telefon" for the recipient (--map to=Telefon)',
      },
      {
        name: '--map text= a column that does not exist',
        args: ['mapping.csv', '--map', 'to=Mobil,text=Tekst'],
        at: 'mapping.csv',
        says: 'no column "Tekst" for the text (--map text=Tekst)',
      },
      {
        name: '--text with a placeholder that has no column',
        args: ['bad-template.csv', '--text', 'Hi {{first}}'],
        at: 'bad-template.csv',
        says: 'the text template uses {{first}} but there is no column "first"',
      },
    ];

    it.for(cases)('$name', async ({ args, at, says }, { expect }) => {
      const run = await send(args);
      expect(await aftermath(run)).toEqual(NOTHING_SENT);
      expect(firstLine(errorOf(run))).toMatch(startsWith(`${at}: `));
      expect(errorOf(run)).toContain(says);
    });

    it('stdin without --input-format is a usage error', async ({ expect }) => {
      const run = await send(['-'], { stdin: 'to,text\n4741234567,hi\n' });
      expect(await aftermath(run)).toEqual(NOTHING_SENT);
      expect(run.error).toBe('reading standard input (-) needs --input-format csv, json or ndjson');
    });

    it('an unknown --input-format is a usage error', async ({ expect }) => {
      const run = await send(['semicolon.csv', '--input-format', 'xml']);
      expect(await aftermath(run)).toEqual(NOTHING_SENT);
      expect(errorOf(run)).toContain('--input-format must be csv, json or ndjson (got "xml")');
    });

    describe('an 8 MB line (eight times the limit, generated at test time, never kept in git)', () => {
      /** Writes head, 8 MB of "x", then tail, without building the whole text as one string. */
      async function writeBig(name: string, head: string, tail: string): Promise<void> {
        await writeFile(join(dir.path, name), [head, 'x'.repeat(8 * MB), tail]);
      }
      const files: {
        name: string;
        head: string;
        tail: string;
        line: number;
        says: string;
        row?: boolean;
      }[] = [
        {
          name: 'big-line.csv',
          head: 'to,text\n4741234567,hello\n4741234568,',
          tail: '\n4741234569,bye\n',
          line: 3,
          says: 'larger than 1 MiB',
          // A row of the body: listed as a malformed row, and the rows after it read.
          row: true,
        },
        {
          // No line break at all in the first 8 MB: the header itself is the huge line.
          name: 'big-header.csv',
          head: 'to,text,',
          tail: '\n4741234567,hello,x\n',
          line: 1,
          says: 'larger than 1 MiB',
        },
        {
          name: 'big-line.ndjson',
          head: '{"to":"4741234567","text":"hi"}\n{"to":"4741234568","text":"',
          tail: '"}\n',
          line: 2,
          says: 'longer than',
        },
        {
          name: 'big-line.json',
          head: '[\n{"to":"4741234567","text":"hi"},\n{"to":"4741234568","text":"',
          tail: '"}\n]\n',
          line: 3,
          says: 'longer than',
        },
      ];

      beforeAll(async () => {
        for (const file of files) await writeBig(file.name, file.head, file.tail);
      });

      it.for(files)(
        '$name: exit 2 naming line $line',
        async ({ name, line, says, row }, { expect }) => {
          const path = join(dir.path, name);
          const run = await send([path]);
          expect(await aftermath(run)).toEqual(NOTHING_SENT);
          if (row) {
            expect(problemLines(errorOf(run)).map((p) => `${p.at}: ${p.field}`)).toEqual([
              `${path}:${line}: malformed CSV`,
            ]);
            expect(errorOf(run)).toContain('1 record of 3 cannot be sent');
          } else expect(firstLine(errorOf(run))).toMatch(startsWith(`${path}:${line}: `));
          expect(errorOf(run)).toContain(says);
          // The error quotes nothing of the huge line.
          expect(errorOf(run).length).toBeLessThan(1000);
        },
      );
    });
  },
);

describe.concurrent(
  'invalid records: every record checked first, listed as file:line: field, counted by field',
  () => {
    it('lists every bad record of bad-records.csv in order, with counts, and sends nothing', async ({
      expect,
    }) => {
      const run = await send(['bad-records.csv']);
      expect(await aftermath(run)).toEqual(NOTHING_SENT);
      expect(firstLine(errorOf(run))).toBe('17 records of 20 cannot be sent:');
      const expected = BAD_RECORDS_PROBLEMS;
      const lines = problemLines(errorOf(run));
      expect(lines.map((l) => [l.at, l.field])).toEqual(expected.map(([at, field]) => [at, field]));
      lines.forEach((line, i) => expect(line.reason).toMatch(expected[i]![2]));
      expect(byField(errorOf(run))).toEqual(BAD_RECORDS_BY_FIELD);
      expect(errorOf(run)).toContain('Nothing was sent.');
    });

    it('--dry-run --json gives the same invalid records and counts', async ({ expect }) => {
      const run = await send(['bad-records.csv', '--dry-run', '--json']);
      expect(run.code).toBe(2);
      expect(run.requests.length).toBe(0);
      const plan = run.planJson!;
      expect(plan).toMatchObject({ records: 20, valid: 3, invalid: 17, skipped: 0 });
      const invalid = plan.invalidRecords as { row: number; file: string; line: number }[];
      expect(invalid.map((r) => [r.row, r.file, r.line])).toEqual(
        [3, 4, 5, 6, 7, 8, 9, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20].map((line) => [
          line - 1,
          'bad-records.csv',
          line,
        ]),
      );
      expect(plan.invalidByField).toEqual(BAD_RECORDS_BY_FIELD);
    });

    it('lists the first 100 bad records and counts the rest', async ({ expect }) => {
      const path = join(dir.path, 'many-bad.csv');
      const lines = ['to,text'];
      for (let i = 0; i < 110; i++) lines.push(`+47212${String(34500 + i)},fixed line ${i}`);
      await writeFile(path, `${lines.join('\n')}\n`);
      const run = await send([path]);
      expect(await aftermath(run)).toEqual(NOTHING_SENT);
      const listed = problemLines(errorOf(run));
      expect(listed).toHaveLength(100);
      expect(listed[0]!.at).toBe(`${path}:2`);
      expect(listed[99]!.at).toBe(`${path}:101`);
      expect(errorOf(run)).toContain('110 records of 110 cannot be sent:');
      expect(errorOf(run)).toContain('… and 10 more records');
      expect(byField(errorOf(run))).toEqual({ to: 110 });
    });

    it('a CRLF file with a multi-line quoted field still names the right line of a later record', async ({
      expect,
    }) => {
      // bad-crlf-multiline.csv: line 1 header, lines 2-4 one record (quoted, CRLF inside), line 5 bad.
      const run = await send(['bad-crlf-multiline.csv']);
      expect(await aftermath(run)).toEqual(NOTHING_SENT);
      expect(problemLines(errorOf(run)).map((p) => `${p.at}: ${p.field}`)).toEqual([
        'bad-crlf-multiline.csv:5: to',
      ]);
    });

    it('a file problem: the missing column comes before the placeholder with no column', async ({
      expect,
    }) => {
      const run = await send(['bad-missing-to.csv', '--text', 'Hi {{first}}']);
      expect(await aftermath(run)).toEqual(NOTHING_SENT);
      const order = errorOf(run)
        .split('\n')
        .filter((l) => l.includes('bad-missing-to.csv: '))
        .map((l) => (l.includes('{{first}}') ? 'placeholder {{first}}' : 'recipient column'));
      expect(order).toEqual(['recipient column', 'placeholder {{first}}']);
      expect(errorOf(run)).toMatch(/\nNothing was sent\.$/);
    });

    it('across files: file problems first, then the bad records of the other files with file:line', async ({
      expect,
    }) => {
      // bad-one-record.csv is readable but its line 3 is a fixed-line number; bad-second-file.csv has
      // no column for {{name}}. Both must be reported, in the order missing column → bad records.
      const run = await send([
        'bad-one-record.csv',
        'bad-second-file.csv',
        '--text',
        'Hi {{name}}',
      ]);
      expect(await aftermath(run)).toEqual(NOTHING_SENT);
      const mentions = errorOf(run)
        .split('\n')
        .filter((l) => /bad-(one-record|second-file)\.csv/.test(l))
        .map((l) => l.trim().split(': ')[0]);
      expect(mentions).toEqual(['bad-second-file.csv', 'bad-one-record.csv:3']);
    });
  },
);

describe.concurrent('--skip-invalid, --dedupe and --limit', () => {
  it('--skip-invalid sends the valid records and reports the invalid one with file:line', async ({
    expect,
  }) => {
    const run = await send(['skip.csv', '--skip-invalid']);
    expect(run.code).toBe(1);
    expect(sentPairs(run)).toEqual([
      [4741234567, 'one'],
      [4741234568, 'two'],
      [4741234567, 'one'],
      [4741234569, 'three'],
      [4741234570, 'four'],
    ]);
    const rows = run.rows;
    expect(rows.map((r) => r.outcome)).toEqual([
      'accepted',
      'invalid',
      'accepted',
      'accepted',
      'accepted',
      'accepted',
    ]);
    expect(rows[1]!.error).toBe(
      'skip.csv:3: to: "+4721234567" is a fixed-line number, not a mobile number',
    );
    expect(rows[1]!.attempts).toBe('0');
  });

  it('--dedupe skips a repeated recipient+text (after normalising), --limit skips valid records past N', async ({
    expect,
  }) => {
    const run = await send(['skip.csv', '--skip-invalid', '--dedupe', '--limit', '2']);
    expect(run.code).toBe(1);
    expect(sentPairs(run)).toEqual([
      [4741234567, 'one'],
      [4741234568, 'two'],
    ]);
    const rows = run.rows;
    expect(rows.map((r) => [r.row, r.outcome])).toEqual([
      ['1', 'accepted'],
      ['2', 'invalid'],
      ['3', 'accepted'],
      ['4', 'skipped'],
      ['5', 'skipped'],
      ['6', 'skipped'],
    ]);
    expect(rows[3]!.error).toContain('--dedupe');
    expect(rows[4]!.error).toBe('beyond --limit 2');
    expect(rows[5]!.error).toBe('beyond --limit 2');
  });

  it('--limit alone: exit 0, the first N sent, the rest skipped', async ({ expect }) => {
    const run = await send(['campaign-a.csv', 'campaign-b.json', '--limit', '3']);
    expect(run.code).toBe(0);
    expect(run.messages.map((m) => m.UserData)).toEqual(['A one', 'A two', 'B one']);
    expect(run.rows.map((r) => r.outcome)).toEqual(['accepted', 'accepted', 'accepted', 'skipped']);
  });

  it('--dry-run --json counts invalid and skipped records', async ({ expect }) => {
    const run = await send([
      'skip.csv',
      '--skip-invalid',
      '--dedupe',
      '--limit',
      '2',
      '--dry-run',
      '--json',
    ]);
    expect(run.code).toBe(0);
    expect(run.requests.length).toBe(0);
    expect(run.planJson).toMatchObject({
      records: 6,
      valid: 2,
      invalid: 1,
      skipped: 3,
      batches: 1,
    });
  });
});

describe.concurrent('mapping and templates', () => {
  it('--map to=COL,text=COL with placeholders matched to columns ignoring case', async ({
    expect,
  }) => {
    const run = await send(['mapping.csv', '--map', 'to=Mobil,text=Melding', '--country', 'NO']);
    expect(run.error).toBeUndefined();
    expect(run.code).toBe(0);
    expect(sentPairs(run)).toEqual([
      [4741234567, 'Hei Kari'],
      [4747912345, 'Hallo Ola'],
    ]);
  });

  it('--text overrides the text column', async ({ expect }) => {
    const run = await send(['semicolon.csv', '--text', 'Til {{name}} på {{phone}}']);
    expect(run.code).toBe(0);
    expect(run.messages.map((m) => m.UserData)).toEqual([
      'Til Kari på 4741234567',
      'Til Ola på 4741234568',
    ]);
  });
});

describe.concurrent('recipients are normalised to MSISDN digits', () => {
  it('+47 with spaces, 0047, bare digits, punctuation and a Swedish number', async ({ expect }) => {
    const run = await send(['recipients.csv']);
    expect(run.code).toBe(0);
    expect(run.messages.map((m) => m.DestinationAddress)).toEqual([
      4741234567, 4791234567, 4790000001, 4741234568, 46701234567,
    ]);
    expect(run.rows.map((r) => r.to)).toEqual([
      '4741234567',
      '4791234567',
      '4790000001',
      '4741234568',
      '46701234567',
    ]);
  });

  it('national numbers with --country NO; international ones still work', async ({ expect }) => {
    const run = await send(['recipients-national.csv', '--country', 'NO']);
    expect(run.code).toBe(0);
    expect(run.messages.map((m) => m.DestinationAddress)).toEqual([
      4741234567, 46701234567, 46701234568,
    ]);
  });

  it('a national number without --country is rejected with a hint', async ({ expect }) => {
    const run = await send(['recipients-national.csv']);
    expect(await aftermath(run)).toEqual(NOTHING_SENT);
    const lines = problemLines(errorOf(run));
    expect(lines.map((l) => `${l.at}: ${l.field}`)).toEqual(['recipients-national.csv:2: to']);
    expect(lines[0]!.reason).toContain('--country');
  });
});

describe.concurrent(
  'text: MessageType by the >160 rule (UTF-16 units) and the segment count, unless the record sets it',
  () => {
    it('sends "00" for one segment and "11" above, keeps a record MessageType', async ({
      expect,
    }) => {
      const records = [
        { to: '4741000001', text: 'a'.repeat(160) }, // 160 → "00"
        { to: '4741000002', text: 'a'.repeat(161) }, // 161 → "11"
        { to: '4741000003', text: '🎉'.repeat(35) }, // 35 emoji = 70 UCS-2 units, 1 segment → "00"
        { to: '4741000004', text: '🎉'.repeat(81) }, // 81 emoji = 162 units → "11"
        { to: '4741000008', text: '€'.repeat(81) }, // 162 septets, 2 segments, 81 units → "11"
        { to: '4741000005', text: 'ж'.repeat(100) }, // UCS-2, 2 segments, though 100 ≤ 160 → "11"
        { to: '4741000006', text: 'short', MessageType: '11' }, // the record's own value wins
        { to: '4741000007', text: '48656C6C6F', MessageType: '10' }, // binary, hex UserData
      ];
      const path = join(dir.path, 'message-types.ndjson');
      await writeFile(path, records.map((r) => JSON.stringify(r)).join('\n'));
      const run = await send([path]);
      expect(run.error).toBeUndefined();
      expect(run.code).toBe(0);
      expect(run.messages.map((m) => m.MessageType)).toEqual([
        '00',
        '11',
        '00',
        '11',
        '11',
        '11',
        '11',
        '10',
      ]);
      expect(run.messages.map((m) => m.UserData)).toEqual(records.map((r) => r.text));
    });

    it('UserData of exactly 1024 characters is sent; 1025 is invalid', async ({ expect }) => {
      const path = join(dir.path, 'userdata-limit.csv');
      await writeFile(
        path,
        `to,text\n4741234567,${'a'.repeat(1024)}\n4741234568,${'a'.repeat(1025)}\n`,
      );
      const run = await send([path]);
      expect(await aftermath(run)).toEqual(NOTHING_SENT);
      expect(problemLines(errorOf(run)).map((p) => `${p.at}: ${p.field}: ${p.reason}`)).toEqual([
        `${path}:3: text: is 1025 characters (at most 1024)`,
      ]);
    });
  },
);

describe.concurrent('--dry-run plan', () => {
  // Hand-computed. GSM-7: 160 septets in one part, else parts of 153; ^{}\[~]|€ cost 2 septets and an
  // escape pair is never split. UCS-2: 70 units in one part, else parts of 67; a surrogate pair
  // (emoji, 2 units) is never split.
  const records = [
    // GSM-7
    { text: 'a'.repeat(160) }, // 160 septets → 1
    { text: 'a'.repeat(161) }, // 161 → 153 + 8 → 2
    { text: 'a'.repeat(306) }, // 306 = 2 × 153 → 2
    { text: 'a'.repeat(307) }, // 307 → 3
    { text: '€'.repeat(80) }, // 160 septets → 1
    { text: '€'.repeat(81) }, // 162 septets: 76 € (152) + 5 € → 2
    { text: `${'a'.repeat(152)}€${'a'.repeat(152)}` }, // 306 septets, but € cannot split: 152 | 2+151 | 1 → 3
    { text: `^{}\\[~]|€${'a'.repeat(142)}` }, // 9 × 2 + 142 = 160 → 1
    { text: `^{}\\[~]|€${'a'.repeat(143)}` }, // 161 → 2
    { text: 'Blåbærsyltetøy til Åse', Gateway: '1933', Price: '300' }, // æøåÅ are GSM-7 → 1
    // UCS-2
    { text: 'ж'.repeat(70) }, // 70 units → 1
    { text: 'ж'.repeat(71) }, // 71 → 67 + 4 → 2
    { text: 'ж'.repeat(134) }, // 134 = 2 × 67 → 2
    { text: 'ж'.repeat(135) }, // 135 → 3
    { text: `${'a'.repeat(68)}🎉` }, // 68 + 2 = 70 units → 1
    { text: `${'a'.repeat(66)}🎉${'a'.repeat(66)}` }, // 134 units, pair cannot split: 66 | 2+65 | 1 → 3
    { text: 'Hello ж', Gateway: '1933', Price: '250' }, // 7 units → 1
  ];
  // GSM-7: 10 messages, 1+2+2+3+1+2+3+1+2+1 = 18 segments. UCS-2: 7 messages, 1+2+2+3+1+3+1 = 13.
  // UCS-2 forced by ж in 5 messages, by 🎉 in 2. Premium: 2 messages, 300 + 250 = 550 øre.
  // 17 records in batches of 5 → 4 batches.
  let path: string;

  beforeAll(async () => {
    path = join(dir.path, 'segments.ndjson');
    const lines = records.map((r, i) => JSON.stringify({ to: `47410000${10 + i}`, ...r }));
    await writeFile(path, `${lines.join('\n')}\n`);
  });

  it('--json: segment counts match the hand-computed values', async ({ expect }) => {
    const run = await send([path, '--dry-run', '--json', '--batch-size', '5']);
    expect(run.error).toBeUndefined();
    expect(run.code).toBe(0);
    expect(run.requests.length).toBe(0);
    expect(run.planJson).toEqual({
      campaign: expect.stringMatching(/^[0-9a-f]{16}$/) as unknown,
      records: 17,
      valid: 17,
      invalid: 0,
      skipped: 0,
      suppressed: 0,
      suppressedByList: {},
      sentBy: {},
      alreadySent: {},
      batches: 4,
      batchSize: 5,
      segments: 31,
      segmentsByEncoding: { 'GSM-7': 18, 'UCS-2': 13 },
      messagesByEncoding: { 'GSM-7': 10, 'UCS-2': 7 },
      // Without ж (no GSM-7 form: left out) each of its texts is one GSM-7 segment; without 🎉, too.
      ucs2Chars: [
        {
          char: '"ж" (U+0436)',
          codePoint: 'U+0436',
          messages: 5,
          rows: [11, 12, 13, 14, 17].map((row) => ({ row, file: path, line: row, field: 'text' })),
          segments: 9,
          segmentsWithout: 5,
        },
        {
          char: '"🎉" (U+1F389)',
          codePoint: 'U+1F389',
          messages: 2,
          rows: [15, 16].map((row) => ({ row, file: path, line: row, field: 'text' })),
          segments: 4,
          segmentsWithout: 2,
        },
      ],
      ucs2CharCount: 2,
      premium: { messages: 2, totalOre: 550 },
      fileProblems: [],
      malformed: 0,
      malformedRows: [],
      invalidRecords: [],
      invalidByField: {},
    });
  });

  it('the plan for a terminal shows the same numbers', async ({ expect }) => {
    const run = await send([path, '--dry-run', '--batch-size', '5']);
    expect(run.code).toBe(0);
    expect(run.requests.length).toBe(0);
    const text = `${run.planText!}\n`;
    expect(text).toMatch(/records\s+17\n/);
    expect(text).toMatch(/to send\s+17\n/);
    expect(text).toMatch(/batches\s+4 \(up to 5 messages each\)\n/);
    expect(text).toMatch(/segments\s+31\n/);
    expect(text).toMatch(/GSM-7\s+10 messages, 18 segments\n/);
    expect(text).toMatch(/UCS-2\s+7 messages, 13 segments\n/);
    expect(text).toContain(
      [
        'UCS-2 forced by 2 characters:',
        '    "ж" (U+0436) in 5 records: 9 segments, 5 segments without it',
        `      ${path}:11 (text), ${path}:12 (text), ${path}:13 (text), …`,
        '    "🎉" (U+1F389) in 2 records: 4 segments, 2 segments without it',
        `      ${path}:15 (text), ${path}:16 (text)\n`,
      ].join('\n'),
    );
    expect(text).toMatch(/premium\s+2 messages, 550 øre in total/);
  });
});

describe.concurrent('--dry-run shows rendered texts and repeats', () => {
  let path: string;
  beforeAll(async () => {
    path = join(dir.path, 'repeats.csv');
    const rows = ['Kari', 'Ola', 'Kari', 'Kari', 'Per', 'Ola'].map((name, i) => {
      const to = name === 'Kari' ? '4741234567' : name === 'Ola' ? '4741234568' : '4741234569';
      // Row 4 is Kari again but with another text: not a repeat.
      return `${to},${name},${i === 3 ? 'late' : 'early'}`;
    });
    await writeFile(path, `to,name,when\n${rows.join('\n')}\n`);
  });

  it('the first three texts as sent, and how many records repeat recipient and text', async ({
    expect,
  }) => {
    const run = await send([path, '--dry-run', '--text', 'Hei {{name}}, kom {{when}}']);
    expect(run.code).toBe(0);
    expect(run.plan!.samples).toEqual([
      { row: 1, to: '4741234567', text: 'Hei Kari, kom early' },
      { row: 2, to: '4741234568', text: 'Hei Ola, kom early' },
      { row: 3, to: '4741234567', text: 'Hei Kari, kom early' },
    ]);
    expect(run.plan!.repeats).toBe(2);
    expect(run.planText).toContain(
      'repeats     2 records repeat an earlier recipient and text; --dedupe skips them',
    );
    expect(run.planText).toContain('first 3 texts\n    4741234567  Hei Kari, kom early\n');
  });

  it('with --dedupe the repeats are skipped, and not counted again', async ({ expect }) => {
    const run = await send([path, '--dry-run', '--dedupe', '--text', 'Hei {{name}}, kom {{when}}']);
    expect(run.plan!.skipped).toBe(2);
    expect(run.plan!.repeats).toBeUndefined();
    expect(run.planText).not.toContain('repeats');
  });
});

describe.concurrent(
  'validation catches what the gateway would reject, before anything is sent',
  () => {
    it('a record that sets MessageType "00" on a text longer than 160 characters', async ({
      expect,
    }) => {
      const path = join(dir.path, 'long-00.csv');
      await writeFile(path, `to,text,MessageType\n4741234567,${'a'.repeat(161)},00\n`);
      const run = await send([path]);
      expect(await aftermath(run)).toEqual(NOTHING_SENT);
      expect(problemLines(errorOf(run)).map((p) => p.at)).toEqual([`${path}:2`]);
    });

    // A CustomData 5,000 levels deep passed --dry-run, then the send crashed in JSON.stringify
    // (exit 70). Both now refuse it in the validation pass, naming file:line.
    it.for<[string, number, (deep: string) => string]>([
      [
        'deep.json',
        5000,
        (deep: string) => `[{"to":"4741000000","text":"x","CustomData":${deep}}]`,
      ],
      [
        'deep.ndjson',
        100_000,
        (deep: string) =>
          `{"to":"4741000000","text":"x"}\n{"to":"4741000001","text":"y","meta":[${deep}]}\n`,
      ],
    ])('a value nested too deep in %s (%i levels)', async ([name, depth, content], { expect }) => {
      const path = join(dir.path, name);
      await writeFile(path, content('{"a":'.repeat(depth) + '1' + '}'.repeat(depth)));
      const field = name.endsWith('.json') ? 'CustomData' : 'meta';
      const at = name.endsWith('.json') ? `${path}:1` : `${path}:2`;
      const problem = { at, field, reason: 'is nested more than 32 levels deep (at most 32)' };
      for (const args of [[path, '--dry-run'], [path]]) {
        const run = await send(args);
        expect(await aftermath(run)).toEqual(NOTHING_SENT);
        expect(problemLines(errorOf(run))).toEqual([problem]);
      }
    });
  },
);

describe('a word in single braces: {name} would be sent as written', () => {
  const refused = (name: string, column: string) =>
    `the text has {${name}}, which would go to every recipient as written: did you mean {{${column}}}? (to send the braces as written, write \\{${name}})`;
  const warned = (name: string) =>
    `the text has {${name}}, which every recipient gets as written (a column's value is {{column}}; write \\{${name}} to say the braces are meant)`;

  it('a column in single braces refuses the run, even under --quiet: exit 2, nothing sent', async ({
    expect,
  }) => {
    const run = await send(['bad-template.csv', '--text', 'Hi {name}, welcome', '--quiet']);
    expect(await aftermath(run)).toEqual(NOTHING_SENT);
    expect(errorOf(run)).toContain(`bad-template.csv: ${refused('name', 'name')}`);
  });

  it('written \\{name}, the braces are sent as written, and nothing is said', async ({
    expect,
  }) => {
    const run = await send(['bad-template.csv', '--text', 'Hi \\{name}, welcome']);
    expect(run.code, run.error).toBe(0);
    expect(run.plan!.warnings).toEqual([]);
    expect(run.messages.map((m) => m.UserData)).toContain('Hi {name}, welcome');
  });

  it('another word in single braces is a warning in the plan, and the run still sends', async ({
    expect,
  }) => {
    const run = await send(['bad-template.csv', '--text', 'Code {ABC} for {{name}}']);
    expect(run.code, run.error).toBe(0);
    expect(run.plan!.warnings).toEqual([{ file: 'bad-template.csv', message: warned('ABC') }]);
    expect(run.planJson!.warnings).toEqual(run.plan!.warnings);
  });

  it('--strict refuses that one too: exit 2, nothing sent', async ({ expect }) => {
    const run = await send(['bad-template.csv', '--text', 'Code {ABC}', '--strict']);
    expect(await aftermath(run)).toEqual(NOTHING_SENT);
    expect(errorOf(run)).toContain(`bad-template.csv: ${warned('ABC')} (--strict)`);
  });

  it('JSON and NDJSON: the keys of the first records stand for the columns', async ({ expect }) => {
    const run = await send(['records.ndjson', '--text', 'Hi {txt}', '--dry-run']);
    expect(run.code).toBe(2);
    expect(errorOf(run)).toContain(`records.ndjson: ${refused('txt', 'text')}`);
  });

  it('a JSON record without the field a placeholder names: the nearest one is named', async ({
    expect,
  }) => {
    const run = await send(['records.ndjson', '--text', 'Hi {{txet}}']);
    expect(await aftermath(run)).toEqual(NOTHING_SENT);
    expect(errorOf(run)).toContain('the record has no field "txet": did you mean {{text}}?');
  });

  it('{{nmae}} names the nearest column', async ({ expect }) => {
    const run = await send(['bad-template.csv', '--text', 'Hi {{nmae}}']);
    expect(await aftermath(run)).toEqual(NOTHING_SENT);
    expect(errorOf(run)).toContain('did you mean {{name}}?');
  });
});

describe.concurrent('malformed CSV rows: every one found in one pass, each with its line', () => {
  const cases: { name: string; file: string; at: number; says: string }[] = [
    {
      name: 'a quote inside a quoted field that is not doubled',
      file: 'bad-quote-inside.csv',
      at: 3,
      says: 'a quote inside a field must be doubled',
    },
    {
      name: 'a bare quote inside an unquoted field',
      file: 'bad-quote-bare.csv',
      at: 3,
      says: 'a quote in the middle of an unquoted field',
    },
    {
      // The quote opens on line 3; the file ends on line 4. The error points at the quote, and
      // line 4 is read as a record of its own.
      name: 'a quoted field never closed names the line where it opens',
      file: 'bad-quote-unclosed.csv',
      at: 3,
      says: 'never closed',
    },
    {
      // CRLF file: lines 2-4 hold one record (CRLF inside its quotes), the bare quote is on line 5.
      name: 'a bare quote after a multi-line quoted field in a CRLF file',
      file: 'bad-crlf-quote.csv',
      at: 5,
      says: 'a quote in the middle of an unquoted field',
    },
    {
      name: 'wrong delimiter: a row split by ; under a , header',
      file: 'bad-wrong-delimiter.csv',
      at: 3,
      says: 'the row has 1 field but the header has 2',
    },
  ];

  it.for(cases)('$name: refused (exit 2), nothing sent', async ({ file, at, says }, { expect }) => {
    const run = await send([file]);
    expect(await aftermath(run)).toEqual(NOTHING_SENT);
    const [problem] = problemLines(errorOf(run));
    expect(problem).toEqual({
      at: `${file}:${at}`,
      field: 'malformed CSV',
      reason: expect.stringContaining(says) as string,
    });
  });

  /** Rows 3, 5, 7 and 9 cannot be read, row 6 is an invalid number; the rest is good. */
  const MIXED =
    'to,text\n4741234567,ok\n4741234568,she said "hi"\n4741234569,fine\n4741234570,a,b\n' +
    '12,short\n4741234571,"x"y\n4741234572,good\n4741234573,"never closed\n';

  it('a dry run lists every malformed row and every invalid record at once', async ({ expect }) => {
    const path = join(dir.path, 'mixed.csv');
    await writeFile(path, MIXED);
    const run = await send([path, '--dry-run']);
    expect(await aftermath(run)).toEqual(NOTHING_SENT);
    expect(problemLines(errorOf(run)).map((p) => `${p.at}: ${p.field}`)).toEqual([
      // Every one listed: in the order of the file.
      `${path}:3: malformed CSV`,
      `${path}:5: malformed CSV`,
      `${path}:6: to`,
      `${path}:7: malformed CSV`,
      `${path}:9: malformed CSV`,
    ]);
    expect(errorOf(run)).toContain('5 records of 8 cannot be sent:');
    expect(byField(errorOf(run))).toEqual({ 'malformed CSV': 4, to: 1 });
    expect(run.planJson!.malformed).toBe(4);
    expect(run.planJson!.malformedRows.map((r) => r.line)).toEqual([3, 5, 7, 9]);
  });

  it('with --skip-invalid, a malformed row is reported invalid with its line; the rest are sent', async ({
    expect,
  }) => {
    const path = join(dir.path, 'mixed-skip.csv');
    await writeFile(path, MIXED);
    const run = await send([path, '--skip-invalid']);
    expect(run.code).toBe(1);
    expect(sentPairs(run)).toEqual([
      [4741234567, 'ok'],
      [4741234569, 'fine'],
      [4741234572, 'good'],
    ]);
    expect(
      run.rows.map((r) => [r.row, r.outcome, r.error!.split(': ').slice(0, 2).join(': ')]),
    ).toEqual([
      ['1', 'accepted', ''],
      ['2', 'invalid', `${path}:3: malformed CSV`],
      ['3', 'accepted', ''],
      ['4', 'invalid', `${path}:5: malformed CSV`],
      ['5', 'invalid', `${path}:6: to`],
      ['6', 'invalid', `${path}:7: malformed CSV`],
      ['7', 'accepted', ''],
      ['8', 'invalid', `${path}:9: malformed CSV`],
    ]);
  });
});
