// Plain lines split by hand give exactly what csv-parse gives for the whole file: the same records,
// the same lines, the same errors, over generated files of every kind the reader meets.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openCsv } from '../../src/input/csv.js';
import { tempDir } from '../helpers/files.js';

let dir: Awaited<ReturnType<typeof tempDir>>;
beforeAll(async () => {
  dir = await tempDir();
});
afterAll(() => dir.remove());

/** Every record as the reader gives it, then its error if it stops with one. */
async function readAll(path: string, split: boolean, delimiter?: string) {
  const records: { line: number; fields: Record<string, string>; malformed?: string }[] = [];
  let error: string | undefined;
  try {
    const input = await openCsv(path, { split, delimiter, label: 'f.csv' });
    for await (const batch of input.records) {
      for (const r of batch)
        records.push({
          line: r.line,
          fields: r.fields as Record<string, string>,
          // A row that cannot be read is a record too, with why: both ways must agree on it.
          ...(r.malformed === undefined ? {} : { malformed: r.malformed }),
        });
    }
  } catch (e) {
    error = (e as Error).message;
  }
  return { records, error };
}

type Read = Awaited<ReturnType<typeof readAll>>;

/**
 * The same error, or none; without one, the same records. A file with an error is refused whole
 * (nothing is sent), and the records read before it depend only on how the file was cut into
 * reads: those of both are checked to agree as far as both go.
 */
function expectSame(fast: Read, reference: Read, what: string): void {
  expect(fast.error, what).toEqual(reference.error);
  const both =
    reference.error === undefined
      ? Math.max(fast.records.length, reference.records.length)
      : Math.min(fast.records.length, reference.records.length);
  const [mine, theirs] = [fast.records.slice(0, both), reference.records.slice(0, both)];
  // Thousands of records are compared as text first; a difference is shown record by record.
  if (JSON.stringify(mine) !== JSON.stringify(theirs)) expect(mine, what).toEqual(theirs);
}

function random(seed: number): () => number {
  let s = seed;
  return () => (s = (s * 48271) % 2147483647) / 2147483647;
}

const PLAIN = [
  '4741234567',
  'Hei Åse',
  'møte kl. 10',
  'Vi sees 🎉',
  '',
  'x',
  '  spaced  ',
  '\uFEFFbom-like',
];

/** A field in one of the shapes a CSV file holds: plain, or (at the rate given) one needing quotes. */
function field(next: () => number, delimiter: string, lineEnd: string, quoting: number): string {
  const plain = PLAIN[Math.floor(next() * PLAIN.length)]!;
  if (next() >= quoting) return next() < 0.5 ? plain : `${plain}${Math.floor(next() * 1e6)}`;
  const pick = next();
  if (pick < 0.25) return `"${plain}${delimiter}more"`;
  if (pick < 0.5) return `"say ""hi"" ${plain}"`;
  if (pick < 0.75) return `"two${lineEnd}lines ${plain}"`;
  if (pick < 0.9) return `"cr\rinside"`;
  return 'y'.repeat(20_000 + Math.floor(next() * 60_000));
}

interface Shape {
  delimiter: string;
  lineEnd: string;
  bom: boolean;
  rows: number;
  /** The share of fields that need quotes (or are very long). */
  quoting: number;
  /** What may go wrong, and where. */
  fault?: 'unclosed' | 'stray-quote' | 'fields' | 'cr-data';
}

function csvFile(seed: number, shape: Shape): string {
  const next = random(seed);
  const { delimiter, lineEnd } = shape;
  const lines = [['to', 'name', 'text'].join(delimiter)];
  const faultAt = 1 + Math.floor(next() * shape.rows);
  for (let i = 1; i <= shape.rows; i++) {
    if (next() < 0.05) {
      lines.push('');
      continue;
    }
    const cells = [1, 2, 3].map(() => field(next, delimiter, lineEnd, shape.quoting));
    if (i === faultAt) {
      if (shape.fault === 'stray-quote') cells[1] = 'Ka"ri';
      if (shape.fault === 'fields') cells.push('extra');
      if (shape.fault === 'unclosed') cells[2] = '"never closed';
      if (shape.fault === 'cr-data') cells[0] = 'a\rb';
    }
    lines.push(cells.join(delimiter));
  }
  const ending = next() < 0.5 ? lineEnd : next() < 0.5 ? '' : lineEnd + lineEnd;
  return (shape.bom ? '\uFEFF' : '') + lines.join(lineEnd) + ending;
}

const SHAPES: Shape[] = [];
// Each delimiter with \n, and the comma with \r\n too: what the split does differently is the
// delimiter and the line end, each met with every fault and size.
for (const [delimiter, lineEnds] of [
  [',', ['\n', '\r\n']],
  ['\t', ['\n']],
] as const) {
  for (const lineEnd of lineEnds) {
    for (const fault of [undefined, 'unclosed', 'stray-quote', 'fields', 'cr-data'] as const) {
      for (const [rows, quoting] of [
        [3, 0.3],
        [400, 0.1],
        // Past the first read (4 KiB) and the next (32 KiB), where the split changes hands; its
        // quotes are rare, so most of its chunks are split by hand.
        [1200, 0.001],
      ] as const) {
        SHAPES.push({ delimiter, lineEnd, bom: rows === 400, rows, quoting, fault });
      }
    }
  }
}

describe('CSV rows split by hand', () => {
  it(`read ${SHAPES.length} generated files exactly as csv-parse alone does`, async () => {
    let split = 0;
    for (const [k, shape] of SHAPES.entries()) {
      const path = join(dir.path, `g${k}.csv`);
      await writeFile(path, csvFile(k + 1, shape));
      const reference = await readAll(path, false);
      expectSame(await readAll(path, true), reference, `${path}: ${JSON.stringify(shape)}`);
      if (reference.records.length > 0) split++;
    }
    // The comparison means something: most files have records, and some end in each fault.
    expect(split).toBeGreaterThan(SHAPES.length / 3);
  });

  it.each([
    ['plain lines after a quoted header', '"to","text"\n4741234567,hi\n4741234568,ho\n'],
    ['a quoted field over a line break, then plain lines', 'to,text\n1,"a\nb"\n2,c\n3,d\n'],
    ['a last line without a line break', 'to,text\n1,a\n2,b'],
    ['empty lines at the end', 'to,text\n1,a\n\n\n'],
    ['a CR-only file', 'to,text\r1,a\r2,b\r'],
    ['a byte order mark and CRLF', '\uFEFFto;text\r\n1;a\r\n'],
    ['U+FEFF starting a later line', 'to,text\n1,a\n\uFEFF2,b\n'],
    ['a quote in the middle of a later field', `to,text\n${'1,a\n'.repeat(20_000)}2,Ka"ri\n3,c\n`],
    ['an unclosed quote far into the file', `to,text\n${'1,a\n'.repeat(20_000)}2,"open\n3,c\n`],
    ['a line longer than the record limit', `to,text\n1,a\n2,${'z'.repeat(1_100_000)}\n3,c\n`],
  ])('%s', async (_, text) => {
    const path = join(dir.path, 'case.csv');
    await writeFile(path, text);
    expectSame(await readAll(path, true), await readAll(path, false), text.slice(0, 40));
  });

  // Each line placed after 2,000 plain lines, where lines are split by hand, and before more.
  it.each([
    ['an empty quoted field', '1,""'],
    ['only empty quoted fields', '"",""'],
    ['a doubled quote', '1,"say ""hi"""'],
    ['nothing but doubled quotes', '1,""""""'],
    ['the delimiter inside quotes', '"1,2",3'],
    ['a delimiter after a closing quote at the end', '"1",'],
    ['non-ASCII inside quotes', '1,"Hei Åse, 🎉"'],
    ['text after a closing quote', '1,"a"b'],
    ['a space before an opening quote', '1, "a"'],
    ['a space after a closing quote', '1,"a" '],
    ['a quote inside an unquoted field', '1,a"b'],
    ['a lone quote', '"'],
    ['a quote closing nothing', '1,a"'],
    ['a quoted field going on over the line break', '1,"two\nlines"'],
  ])('%s', async (_, snippet) => {
    const path = join(dir.path, 'snippet.csv');
    const plain = '4741234567,hello\n'.repeat(2_000);
    for (const delimiter of [',', ';', '||']) {
      const text = `to,text\n${plain}${snippet}\n${plain}`.replaceAll(',', delimiter);
      await writeFile(path, text);
      const given = delimiter === '||' ? delimiter : undefined;
      const fast = await readAll(path, true, given);
      expectSame(fast, await readAll(path, false, given), `${snippet} with ${delimiter}`);
      if (fast.error === undefined) expect(fast.records).toHaveLength(4_001);
    }
  });

  // Files a reviewer built against the first version of the split: each read differently. The
  // first two put their trouble where a read ends: the first read (4 KiB), the second (32 KiB
  // more), and where the first read ended before it was made small.
  const READ_ENDS = [4096, 4096 + 32768, 32768];
  it.each([
    ...READ_ENDS.map((end) => [
      `a wrong field count just before a bad quote, where a read ends (${end})`,
      () => {
        let s = 'h1,h2\n';
        while (s.length < end - 40) s += '4741234567,hi\n';
        s += 'x'.repeat(end - 10 - s.length) + ',y,z\n' + '47412,hello\n' + 'a"b,c\n';
        return s + '4741234567,hi\n';
      },
    ]),
    ...READ_ENDS.map((end) => [
      `a quoted line break in the header of a CRLF file, a long line where a read ends (${end})`,
      () => {
        let s = '"Phone\nnumber",Message\r\n';
        let i = 0;
        while (s.length < end - 60) s += `4741234${String(i++).padStart(3, '0')},hello\r\n`;
        s += '4749999999,' + 'x'.repeat(end - 13 - s.length) + '\r\n';
        return s + '\n'.repeat(40000) + '4740000001,bye\r\n4740000002,bye\r\n';
      },
    ]),
    [
      'a quoted line break in the header, then LF lines',
      () => {
        let s = '"h\n1",h2\r\n';
        for (let i = 0; i < 5000; i++) s += `${i},x${i}\n`;
        return s;
      },
    ],
    [
      'a header longer than the first read, with CRLF lines',
      () => `${'column,'.repeat(800)}to\r\n${`${'x,'.repeat(800)}4741234567\r\n`.repeat(50)}`,
    ],
    [
      'a header longer than the first read, with LF lines',
      () => `${'column,'.repeat(800)}to\n${`${'x,'.repeat(800)}4741234567\n`.repeat(50)}`,
    ],
  ] as [string, () => string][])('%s', async (_, build) => {
    const path = join(dir.path, 'found.csv');
    await writeFile(path, build());
    expectSame(await readAll(path, true), await readAll(path, false), 'found.csv');
  });

  it('with --delimiter given, as with it detected', async () => {
    const path = join(dir.path, 'semi.csv');
    await writeFile(path, `to;text\n${'4741234567;Hei, du\n'.repeat(10_000)}`);
    const fast = await readAll(path, true, ';');
    expect(fast.records).toHaveLength(10_000);
    expectSame(fast, await readAll(path, false, ';'), 'semi.csv');
  });
});

describe('a row that cannot be read is a record of its own, and reading goes on', () => {
  const cases: [name: string, text: string, expected: [line: number, what: string][]][] = [
    [
      'a stray quote, then good rows',
      'to,text\n1,ok\n2,Ka"ri\n3,next\n',
      [
        [2, 'ok'],
        [3, 'a quote in the middle of an unquoted field'],
        [4, 'next'],
      ],
    ],
    [
      'a quote not doubled inside quotes',
      'to,text\n1,"say "hi" now"\n2,next\n',
      [
        [2, 'a quote inside a field must be doubled'],
        [3, 'next'],
      ],
    ],
    [
      'a quote never closed ends with its line',
      'to,text\n1,"never closed\n2,next\n3,last\n',
      [
        [2, 'never closed'],
        [3, 'next'],
        [4, 'last'],
      ],
    ],
    [
      'too many fields, and too few',
      'to,text\n1,a,b\n2\n3,fine\n',
      [
        [2, 'the row has 3 fields but the header has 2'],
        [3, 'the row has 1 field but the header has 2'],
        [4, 'fine'],
      ],
    ],
    [
      'a multi-line quoted field before, CRLF',
      'to,text\r\n1,"two\r\nlines"\r\n2,Ka"ri\r\n3,"x"y\r\n4,end\r\n',
      [
        [2, 'two\r\nlines'],
        [4, 'a quote in the middle of an unquoted field'],
        [5, 'a quote inside a field must be doubled'],
        [6, 'end'],
      ],
    ],
  ];

  it.each(
    cases.flatMap(([name, text, expected]) =>
      [true, false].map((split) => [name, split, text, expected] as const),
    ),
  )('%s (split by hand: %s)', async (name, split, text, expected) => {
    const path = join(dir.path, `malformed-${name.replace(/\W+/g, '-')}-${split}.csv`);
    await writeFile(path, text);
    const read = await readAll(path, split);
    expect(read.error).toBeUndefined();
    expect(read.records.map((r) => [r.line, r.malformed ?? r.fields.text])).toEqual(
      expected.map(([line, what]) => [line, expect.stringContaining(what) as string]),
    );
  });
});
