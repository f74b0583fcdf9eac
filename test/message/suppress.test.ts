// Suppression lists, by table: each line form, both file forms, and every way a list is refused.
import { readdirSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/shared/errors.js';
import {
  loadSuppression,
  MAX_LISTED_PROBLEMS,
  parseListLine,
  suppressedReason,
  type ListLine,
} from '../../src/message/suppress.js';
import { tempDir } from '../helpers/files.js';

let dir: Awaited<ReturnType<typeof tempDir>>;
beforeAll(async () => {
  dir = await tempDir();
});
afterAll(async () => {
  await dir.remove();
});

describe('parseListLine', () => {
  const cases: [line: string, country: string | undefined, expected: ListLine][] = [
    ['4741234567', undefined, { kind: 'number', msisdn: '4741234567' }],
    ['+47 412 34 567', undefined, { kind: 'number', msisdn: '4741234567' }],
    ['0047 41234567', undefined, { kind: 'number', msisdn: '4741234567' }],
    ['+47-412-34-567', undefined, { kind: 'number', msisdn: '4741234567' }],
    ['  +4741234567  ', undefined, { kind: 'number', msisdn: '4741234567' }],
    ['41234567', 'NO', { kind: 'number', msisdn: '4741234567' }],
    ['412 34 567', 'NO', { kind: 'number', msisdn: '4741234567' }],
    ['+46 70 123 45 67', 'NO', { kind: 'number', msisdn: '46701234567' }],
    ['0046701234567', 'NO', { kind: 'number', msisdn: '46701234567' }],
    // A landline cannot match a recipient, but is no mistake in an opt-out list.
    ['+47 22 12 34 56', undefined, { kind: 'number', msisdn: '4722123456' }],
    ['4741234567 # asked by phone 2024-05-01', undefined, { kind: 'number', msisdn: '4741234567' }],
    ['', undefined, { kind: 'blank' }],
    ['   ', undefined, { kind: 'blank' }],
    ['# opted out in the shop', undefined, { kind: 'blank' }],
    ['  #', undefined, { kind: 'blank' }],
    [
      '41234567',
      undefined,
      {
        kind: 'error',
        reason:
          '"41234567" not a mobile number (too short); if this is a national number, give its country with --country',
      },
    ],
    ['abc', undefined, { kind: 'error', reason: '"abc" not a phone number' }],
    ['47412345;67', undefined, { kind: 'error', reason: '"47412345;67" not a phone number' }],
    [
      '+47 4123',
      undefined,
      { kind: 'error', reason: '"+47 4123" not a mobile number (too short)' },
    ],
  ];
  it.each(cases)('%j (country %s)', (line, country, expected) => {
    expect(parseListLine(line, country)).toEqual(expected);
  });
});

/** Writes each list into the test folder and loads them in order; labels are the base names. */
async function load(files: Record<string, string>, country?: string) {
  const lists = [];
  for (const [name, content] of Object.entries(files)) {
    const path = join(dir.path, name);
    if (!name.startsWith('missing')) await writeFile(path, content);
    lists.push({ path, label: name });
  }
  return loadSuppression(lists, country);
}

/** The problems of a refused load, as `file:line: field: reason` lines of its message. */
async function refusal(files: Record<string, string>, country?: string) {
  const error: unknown = await load(files, country).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(UsageError);
  const usage = error as UsageError;
  expect(usage.exitCode).toBe(2);
  expect(usage.message.split('\n').at(-1)).toBe('Nothing was sent.');
  return { lines: usage.message.split('\n').slice(1, -1), problems: usage.problems };
}

describe('loadSuppression', () => {
  const NUMBERS = ['4741234567', '4741234568', '4741234569', '46701234567'];

  it('closes a CSV list it refuses at its header, not leaving the file to the garbage collector', async () => {
    const open = () => readdirSync('/proc/self/fd').length;
    const before = open();
    for (let i = 0; i < 5; i++)
      await refusal({ 'optouts.csv': 'name,email\nKari,k@example.com\n' });
    expect(open()).toBe(before);
  });

  const accepted: [title: string, files: Record<string, string>, country: string | undefined][] = [
    [
      'one number a line, with comments, blank lines and CRLF',
      {
        'optouts.txt':
          '# opt-outs\r\n+47 412 34 567\r\n\r\n004741234568 # by phone\r\n4741234569\r\n+46701234567\r\n',
      },
      undefined,
    ],
    [
      'national numbers with --country',
      { 'optouts.txt': '41234567\n41234568\n412 34 569\n+46 70 123 45 67\n' },
      'NO',
    ],
    [
      'a CSV with a phone column among others, quoted fields, a BOM',
      {
        'optouts.csv':
          '\uFEFFname,Phone,when\nKari,+47 412 34 567,2024-01-01\n"Ola, jr",004741234568,x\nPer,4741234569,\nEva,+46701234567,\n',
      },
      undefined,
    ],
    [
      'a CSV whose recipient column is named msisdn, semicolon-separated, national numbers',
      { 'optouts.csv': 'msisdn;reason\n41234567;stop\n41234568;\n41234569;\n+46701234567;x\n' },
      'NO',
    ],
    [
      'a CSV row without a number suppresses nobody',
      { 'optouts.csv': 'to,name\n4741234567,a\n,b\n4741234568,c\n4741234569,d\n46701234567,e\n' },
      undefined,
    ],
    [
      'two lists',
      { 'a.txt': '4741234567\n4741234568\n', 'b.csv': 'phone\n4741234569\n46701234567\n' },
      undefined,
    ],
  ];
  it.each(accepted)('%s', async (_title, files, country) => {
    const suppression = (await load(files, country))!;
    for (const number of NUMBERS) expect(suppression.match(number), number).toBeDefined();
    expect(suppression.match('4741234570')).toBeUndefined();
    expect(suppression.match('4741234566')).toBeUndefined();
  });

  it('names the first list that holds a number; repeats within a list are kept once', async () => {
    const suppression = (await load({
      'first.txt': '4741234567\n4741234567\n+4741234567\n',
      'second.txt': '4741234567\n4741234568\n',
    }))!;
    expect(suppression.lists.map((l) => [l.name, l.numbers.length])).toEqual([
      ['first.txt', 1],
      ['second.txt', 2],
    ]);
    expect(suppression.match('4741234567')).toBe('first.txt');
    expect(suppression.match('4741234568')).toBe('second.txt');
    expect(suppressedReason('first.txt')).toBe('suppressed (first.txt)');
  });

  it('an empty list, or one of comments only, suppresses nobody', async () => {
    const suppression = (await load({ 'empty.txt': '', 'comments.txt': '# none yet\n\n' }))!;
    expect(suppression.lists.map((l) => l.numbers.length)).toEqual([0, 0]);
    expect(suppression.match('4741234567')).toBeUndefined();
  });

  it('no lists: nothing to match against', async () => {
    expect(await loadSuppression([])).toBeUndefined();
  });

  it('holds many numbers in a typed array, found by halving', async () => {
    const lines = Array.from({ length: 20_000 }, (_, i) => `47${41000000 + i * 3}`);
    const suppression = (await load({ 'big.txt': lines.join('\n') }))!;
    expect(suppression.lists[0]!.numbers).toBeInstanceOf(Float64Array);
    expect(suppression.lists[0]!.numbers.length).toBe(20_000);
    expect(suppression.match(`47${41000000 + 3 * 12_345}`)).toBe('big.txt');
    expect(suppression.match(`47${41000000 + 3 * 12_345 + 1}`)).toBeUndefined();
  });

  const refused: [title: string, files: Record<string, string>, lines: string[]][] = [
    [
      'a line that is not a number, with its file and line',
      { 'optouts.txt': '# list\n4741234567\n\nabc\n4741234568\n+47 4123\n' },
      [
        '  optouts.txt:4: "abc" not a phone number',
        '  optouts.txt:6: "+47 4123" not a mobile number (too short)',
      ],
    ],
    [
      'a national number without --country',
      { 'optouts.txt': '4741234567\n41234567\n' },
      [
        '  optouts.txt:2: "41234567" not a mobile number (too short); if this is a national number, give its country with --country',
      ],
    ],
    [
      'a CSV without a phone column, at its header line',
      { 'optouts.csv': '\nname,email\nKari,kari@example.com\n' },
      [
        '  optouts.csv:2: neither a number nor a CSV header with a phone column (to, phone, msisdn, mobile, number, recipient or DestinationAddress); columns are: name, email',
      ],
    ],
    [
      'a bad number in a CSV, with its line and column',
      { 'optouts.csv': 'name,mobile\nKari,4741234567\nOla,12ab\n' },
      ['  optouts.csv:3: mobile: "12ab" not a phone number'],
    ],
    [
      'a malformed CSV',
      { 'optouts.csv': 'name,phone\nKari,4741234567,extra\n' },
      [
        '  optouts.csv:2: malformed CSV: the row has 3 fields but the header has 2 (a stray delimiter, or a field that needs quotes?)',
      ],
    ],
    [
      'every malformed row of a CSV, and the bad numbers after them',
      { 'optouts.csv': 'name,phone\nKa"ri,4741234567\nOla,4741234568,x\nPer,12ab\n' },
      [
        '  optouts.csv:2: malformed CSV: a quote in the middle of an unquoted field: quote the whole field and double the quote ("Ka""ri")',
        '  optouts.csv:3: malformed CSV: the row has 3 fields but the header has 2 (a stray delimiter, or a field that needs quotes?)',
        '  optouts.csv:4: phone: "12ab" not a phone number',
      ],
    ],
    [
      'a list that does not exist, and every problem of every list at once',
      { 'missing.txt': '', 'bad.txt': 'x\n' },
      [
        '  missing.txt: the suppression list does not exist',
        '  bad.txt:1: neither a number nor a CSV header with a phone column (to, phone, msisdn, mobile, number, recipient or DestinationAddress); columns are: x',
      ],
    ],
  ];
  it.each(refused)('refuses %s (exit 2)', async (_title, files, lines) => {
    const { lines: got, problems } = await refusal(files);
    expect(got).toEqual(lines);
    expect(problems).toHaveLength(lines.length);
  });

  it('a list that is all wrong lists the first problems and counts the rest', async () => {
    const { lines, problems } = await refusal({
      'wrong.txt': ['4741234567', ...Array.from({ length: 100 }, (_, i) => `x${i}`)].join('\n'),
    });
    expect(problems).toHaveLength(MAX_LISTED_PROBLEMS);
    expect(lines.at(-1)).toBe(`  … and ${100 - MAX_LISTED_PROBLEMS} more`);
  });
});
