// The format table: extensions to formats, CSV formula escapes written and read back, and every readable format read back by the one reader.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/shared/errors.js';
import {
  CSV_OPTIONS,
  csvRows,
  FORMATS,
  readableFormat,
  reportFormat,
  unescapeFormula,
  type ReadRow,
} from '../../src/report/format.js';
import type { RowResult } from '../../src/message/outcome.js';
import { readReport } from '../../src/report/read.js';
import { reportColumns } from '../../src/report/row.js';
import { openReport } from '../../src/report/writer.js';
import { tempDir } from '../helpers/files.js';

let dir: Awaited<ReturnType<typeof tempDir>>;
beforeAll(async () => {
  dir = await tempDir();
});
afterAll(() => dir.remove());

describe('reportFormat and readableFormat', () => {
  it.each([
    ['r.csv', 'csv', 'csv'],
    ['R.CSV', 'csv', 'csv'],
    ['report', 'csv', 'csv'],
    ['r.json', 'json', 'json'],
    ['r.ndjson', 'ndjson', 'ndjson'],
    ['r.jsonl', 'ndjson', 'ndjson'],
    [
      'r.xml',
      'junit',
      /JUnit XML report cannot be read back; use a \.csv, \.json or \.ndjson report/,
    ],
    [
      'r.txt',
      /--report r\.txt: the extension must be \.csv, \.json, \.ndjson or \.xml/,
      /r\.txt: a report's extension must be \.csv, \.json or \.ndjson/,
    ],
  ])('%s: written as %s, read as %s', (path, written, read) => {
    if (typeof written === 'string') expect(reportFormat(path)).toBe(written);
    else {
      expect(() => reportFormat(path)).toThrow(UsageError);
      expect(() => reportFormat(path)).toThrow(written);
    }
    if (typeof read === 'string') expect(readableFormat(path)).toBe(read);
    else {
      expect(() => readableFormat(path)).toThrow(UsageError);
      expect(() => readableFormat(path)).toThrow(read);
    }
  });
});

/** One cell as the CSV layout writes it, parsed back by a CSV reader: quoting undone, escapes kept. */
function csvCell(cell: string): string {
  const text = FORMATS.csv.layout.body([[cell]], true);
  const [record] = parse(text);
  return record![0]!;
}

describe('CSV formula escapes (csv-stringify escape_formulas)', () => {
  it.each([
    ['=SUM(A1:A9)', "'=SUM(A1:A9)"],
    ['=1', "'=1"],
    ['+cmd', "'+cmd"],
    ['-cmd', "'-cmd"],
    ['@SUM(A1)', "'@SUM(A1)"],
    ['\t=1', "'\t=1"],
    ['\rfoo', "'\rfoo"],
    ['-', "'-"],
    ['+', "'+"],
    ['=', "'="],
    ['+1+1', "'+1+1"],
    ["-2+3+cmd|' /C calc'!A0", "'-2+3+cmd|' /C calc'!A0"],
    ['-1e5', "'-1e5"],
    ['+47 412 34 567', "'+47 412 34 567"],
    ['-5\n=1', "'-5\n=1"],
    ['=HYPERLINK("x","y")', '\'=HYPERLINK("x","y")'],
    // Full-width forms, which spreadsheets also read as formulas; the hand-made escape missed them.
    ['＝SUM(A1)', "'＝SUM(A1)"],
    ['＋cmd', "'＋cmd"],
    ['－cmd', "'－cmd"],
    ['＠SUM(A1)', "'＠SUM(A1)"],
    ['－5', "'－5"],
  ])('%j is escaped → %j', (cell, escaped) => {
    expect(csvCell(cell)).toBe(escaped);
  });

  it.each([
    '',
    'hello',
    'accepted',
    '4741234567',
    '0',
    '+4741234567',
    '-5',
    '+5',
    '-1.5',
    '+0.25',
    'a=b',
    'x+y',
    'mail@example.com',
    ' =1',
    'server=smsgw1; subnumref=1933',
    "'=already escaped",
    'a＝b',
  ])('%j is left as it is', (cell) => {
    expect(csvCell(cell)).toBe(cell);
  });

  it('writes the cells of a row byte for byte as before, quoting only where CSV needs it', () => {
    expect(FORMATS.csv.layout.body([['1', '=a,b', 'x"y', '-5', '＠x']], true)).toBe(
      '1,"\'=a,b","x""y",-5,\'＠x\n',
    );
  });
});

describe('unescapeFormula', () => {
  it.each([
    // What the writer escapes now, and what the hand-made escape of earlier versions wrote.
    ["'=id", '=id'],
    ["'+cmd", '+cmd'],
    ["'-1e5", '-1e5'],
    ["'@SUM(A1)", '@SUM(A1)'],
    ["'\t=1", '\t=1'],
    ["'+47 412 34 567", '+47 412 34 567'],
    ["'＝SUM(A1)", '＝SUM(A1)'],
    ["'＠x", '＠x'],
  ])('%j reads back as %j', (cell, value) => {
    expect(unescapeFormula(cell)).toBe(value);
  });

  it.each(["'plain", "'", "''=x", "'+5", "'-1.5", "'4741234567", '=raw', 'plain'])(
    '%j is not an escape and reads as it is',
    (cell) => {
      expect(unescapeFormula(cell)).toBe(cell);
    },
  );

  it.each(['=1', '+cmd', '-', '＋1', 'plain', '+4741234567', "'quoted", "''=x"])(
    'a value written and read back is what it was, or a formula escape of it: %j',
    (value) => {
      const cell = csvCell(value);
      expect(unescapeFormula(cell)).toBe(value.startsWith("'") ? unescapeFormula(value) : value);
    },
  );
});

const ROWS: RowResult[] = [
  {
    row: 1,
    to: '4741000001',
    messageId: 'm1',
    outcome: 'accepted',
    statusCode: 0,
    statusDescription: 'OK',
    transactionId: 't1',
    extraInfo: { server: 'sim1' },
    attempts: 1,
    segments: 1,
    encoding: 'GSM-7',
  },
  {
    row: 2,
    to: '+47 123',
    messageId: '=m2',
    outcome: 'invalid',
    attempts: 0,
    error: '＠not, "a" number\nat all',
  },
  {
    row: 3,
    to: '4741000003',
    messageId: 'm3',
    outcome: 'rejected',
    statusCode: -1,
    statusDescription: '-bad',
    attempts: 2,
    segments: 3,
    encoding: 'UCS-2',
  },
];

/** Rows as every readable format gives them back: CSV has every column, as text. */
const READ_BACK = {
  csv: [
    {
      row: '1',
      to: '4741000001',
      messageId: 'm1',
      outcome: 'accepted',
      statusCode: '0',
      statusDescription: 'OK',
      transactionId: 't1',
      extraInfo: 'server=sim1',
      attempts: '1',
      error: '',
      segments: '1',
      encoding: 'GSM-7',
    },
    {
      row: '2',
      to: '+47 123',
      messageId: '=m2',
      outcome: 'invalid',
      statusCode: '',
      statusDescription: '',
      transactionId: '',
      extraInfo: '',
      attempts: '0',
      error: '＠not, "a" number\nat all',
      segments: '',
      encoding: '',
    },
    {
      row: '3',
      to: '4741000003',
      messageId: 'm3',
      outcome: 'rejected',
      statusCode: '-1',
      statusDescription: '-bad',
      transactionId: '',
      extraInfo: '',
      attempts: '2',
      error: '',
      segments: '3',
      encoding: 'UCS-2',
    },
  ],
  json: [
    { ...ROWS[0] },
    {
      row: 2,
      to: '+47 123',
      messageId: '=m2',
      outcome: 'invalid',
      attempts: 0,
      error: ROWS[1]!.error,
    },
    {
      row: 3,
      to: '4741000003',
      messageId: 'm3',
      outcome: 'rejected',
      statusCode: -1,
      statusDescription: '-bad',
      attempts: 2,
      segments: 3,
      encoding: 'UCS-2',
    },
  ],
};

async function entries(path: string): Promise<ReadRow[]> {
  const read: ReadRow[] = [];
  for await (const entry of readReport(path)) read.push(entry);
  return read;
}

describe('readReport: what the writer wrote reads back the same', () => {
  it.each([
    ['r.csv', READ_BACK.csv, [2, 3, 4]],
    ['r.json', READ_BACK.json, [1, 2, 3]],
    ['r.ndjson', READ_BACK.json, [1, 2, 3]],
    ['r.jsonl', READ_BACK.json, [1, 2, 3]],
  ])('%s', async (name, values, lines) => {
    const path = join(dir.path, name);
    const writer = await openReport(path, { force: true });
    await writer.write(ROWS.slice(0, 1));
    await writer.write(ROWS.slice(1));
    await writer.close();
    const read = await entries(path);
    const rows = read.filter((entry) => entry.kind === 'row');
    expect(rows.map((row) => row.values)).toEqual(values);
    // CSV counts records from the header's 1: a quoted line break does not start a row.
    expect(rows.map((row) => row.line)).toEqual(lines);
    if (name.endsWith('.csv')) {
      expect(read[0]).toEqual({ kind: 'header', columns: Object.keys(READ_BACK.csv[0]!) });
    }
  });

  it.each([
    ['n.csv', { segments: '1', encoding: 'GSM-7', normalized: '2' }],
    ['n.json', { segments: 1, encoding: 'GSM-7', normalized: 2 }],
    ['n.ndjson', { segments: 1, encoding: 'GSM-7', normalized: 2 }],
  ])(
    '%s: a --gsm-normalize run adds normalized last, and it reads back',
    async (name, normalized) => {
      const path = join(dir.path, name);
      const writer = await openReport(path, {
        force: true,
        columns: reportColumns({ normalized: true }),
      });
      await writer.write([{ ...ROWS[0]!, normalized: 2 }, ROWS[2]!]);
      await writer.close();
      const read = await entries(path);
      if (name.endsWith('.csv')) {
        expect(read[0]).toEqual({
          kind: 'header',
          columns: [...Object.keys(READ_BACK.csv[0]!), 'normalized'],
        });
      }
      const rows = read.filter((entry) => entry.kind === 'row').map((row) => row.values);
      expect(rows[0]).toMatchObject(normalized);
      // A row --gsm-normalize left alone has no count.
      expect(rows[1]!.normalized).toBe(name.endsWith('.csv') ? '' : undefined);
    },
  );

  it('refuses a JUnit report, naming the formats that can be read', async () => {
    await expect(entries(join(dir.path, 'r.xml'))).rejects.toThrow(
      /JUnit XML report cannot be read back/,
    );
  });

  it('reads a CSV report from an earlier version, apostrophe escapes and all, as it did', async () => {
    const path = join(dir.path, 'old.csv');
    await writeFile(
      path,
      'row,to,messageId,outcome,statusCode,statusDescription,transactionId,extraInfo,attempts,error\n' +
        "1,'+47 1,'=id,invalid,,,,,0,\"'@x, y\"\n" +
        "2,+4741000002,'plain,accepted,0,'-bad,t2,server=sim1,1,＝SUM(A1)\n",
    );
    const rows = (await entries(path)).filter((entry) => entry.kind === 'row');
    expect(rows.map((row) => row.values)).toMatchObject([
      { to: '+47 1', messageId: '=id', error: '@x, y' },
      { to: '+4741000002', messageId: "'plain", statusDescription: '-bad', error: '＝SUM(A1)' },
    ]);
    // The cells themselves stay as the file holds them, for a rewrite to copy.
    expect(rows[0]).toMatchObject({
      cells: expect.arrayContaining(["'=id", "'@x, y"]) as string[],
    });
  });

  it('reads a JSON report cut short by a kill, and reports elements that are not rows', async () => {
    const path = join(dir.path, 'cut.json');
    await writeFile(
      path,
      '[\n  {"row":1,"outcome":"accepted"},\n  [1],\n  {"row":3,"outcome":"failed"}',
    );
    expect(await entries(path)).toEqual([
      { kind: 'row', line: 1, values: { row: 1, outcome: 'accepted' } },
      { kind: 'unreadable', line: 2, text: '[1]' },
      { kind: 'row', line: 3, values: { row: 3, outcome: 'failed' } },
    ]);
  });

  it('reads ndjson line by line, keeping each line for a rewrite and skipping blank ones', async () => {
    const path = join(dir.path, 'torn.ndjson');
    await writeFile(path, '{"row":1}\n\n{"row":2}\n{"row":3,"to":"47');
    expect(await entries(path)).toEqual([
      { kind: 'row', line: 1, values: { row: 1 }, text: '{"row":1}' },
      { kind: 'row', line: 3, values: { row: 2 }, text: '{"row":2}' },
      { kind: 'unreadable', line: 4, text: '{"row":3,"to":"47' },
    ]);
  });
});

describe('the writers lay reports out byte for byte', () => {
  it.each([
    [
      'b.csv',
      'row,to,messageId,outcome,statusCode,statusDescription,transactionId,extraInfo,attempts,error,segments,encoding\n' +
        '1,4741000001,m1,accepted,0,OK,t1,server=sim1,1,,1,GSM-7\n' +
        '2,\'+47 123,\'=m2,invalid,,,,,0,"\'＠not, ""a"" number\nat all",,\n' +
        "3,4741000003,m3,rejected,-1,'-bad,,,2,,3,UCS-2\n",
    ],
    [
      'b.json',
      '[\n' +
        '  {"row":1,"to":"4741000001","messageId":"m1","outcome":"accepted","statusCode":0,"statusDescription":"OK","transactionId":"t1","extraInfo":{"server":"sim1"},"attempts":1,"segments":1,"encoding":"GSM-7"},\n' +
        '  {"row":2,"to":"+47 123","messageId":"=m2","outcome":"invalid","attempts":0,"error":"＠not, \\"a\\" number\\nat all"},\n' +
        '  {"row":3,"to":"4741000003","messageId":"m3","outcome":"rejected","statusCode":-1,"statusDescription":"-bad","attempts":2,"segments":3,"encoding":"UCS-2"}\n' +
        ']\n',
    ],
    [
      'b.ndjson',
      '{"row":1,"to":"4741000001","messageId":"m1","outcome":"accepted","statusCode":0,"statusDescription":"OK","transactionId":"t1","extraInfo":{"server":"sim1"},"attempts":1,"segments":1,"encoding":"GSM-7"}\n' +
        '{"row":2,"to":"+47 123","messageId":"=m2","outcome":"invalid","attempts":0,"error":"＠not, \\"a\\" number\\nat all"}\n' +
        '{"row":3,"to":"4741000003","messageId":"m3","outcome":"rejected","statusCode":-1,"statusDescription":"-bad","attempts":2,"segments":3,"encoding":"UCS-2"}\n',
    ],
  ])('%s', async (name, text) => {
    const path = join(dir.path, name);
    const writer = await openReport(path, { force: true });
    await writer.write(ROWS.slice(0, 2));
    await writer.write(ROWS.slice(2));
    await writer.close();
    expect(await readFile(path, 'utf8')).toBe(text);
  });

  it.each([
    [
      'e.csv',
      'row,to,messageId,outcome,statusCode,statusDescription,transactionId,extraInfo,attempts,error,segments,encoding\n',
    ],
    ['e.json', '[\n]\n'],
    ['e.ndjson', ''],
  ])('%s with no rows', async (name, text) => {
    const path = join(dir.path, name);
    const writer = await openReport(path, { force: true });
    await writer.close();
    expect(await readFile(path, 'utf8')).toBe(text);
  });
});

describe('csvRows', () => {
  // Every kind of cell the library treats specially, and plain ones around them.
  const CELLS = [
    '',
    'accepted',
    '4741234567',
    '5aa904481-800009',
    'server=sim1; subnumref=997009990000800009',
    'a,b',
    'say "hi"',
    'two\nlines',
    'cr\rhere',
    'crlf\r\nhere',
    '=1+1',
    '+47 412',
    '+4741234567',
    '-1',
    '-12.5',
    '-',
    '@SUM(A1)',
    '\tindented',
    '\uFF1D1',
    '\uFF0B1',
    '\uFF0D1',
    '\uFF20x',
    "'=already",
    ' =spaced',
    'æøå ÆØÅ',
    '\u{1F600}',
    'a;b',
  ];
  /** A small seeded generator, so a failure names a reproducible row. */
  function* rows(count: number): Generator<string[]> {
    let seed = 42;
    const next = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31);
    for (let i = 0; i < count; i++) {
      yield Array.from({ length: 1 + (next() % 10) }, () => CELLS[next() % CELLS.length]!);
    }
  }

  it('writes every row exactly as csv-stringify does, one row and many at a time', () => {
    const all = [...rows(5_000)];
    for (const row of all)
      expect(csvRows([row]), JSON.stringify(row)).toBe(stringify([row], CSV_OPTIONS));
    expect(csvRows(all)).toBe(stringify(all, CSV_OPTIONS));
  });

  it.each(CELLS.map((cell) => [cell]))(
    'writes the single cell %j as csv-stringify does',
    (cell) => {
      expect(csvRows([[cell]])).toBe(stringify([[cell]], CSV_OPTIONS));
      expect(csvRows([[cell, cell]])).toBe(stringify([[cell, cell]], CSV_OPTIONS));
    },
  );

  it('takes the plain path for plain rows (the library is not asked)', () => {
    expect(csvRows([['1', '4741234567', 'accepted', '', '0']])).toBe('1,4741234567,accepted,,0\n');
  });
});
