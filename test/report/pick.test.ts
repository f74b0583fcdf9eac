// pickRows: the wanted rows of a report, as readReport reads them, with only those lines parsed.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pickRows } from '../../src/report/pick.js';
import { readReport } from '../../src/report/read.js';
import { tempDir } from '../helpers/files.js';

let dir: Awaited<ReturnType<typeof tempDir>>;
beforeAll(async () => {
  dir = await tempDir();
});
afterAll(async () => {
  await dir.remove();
});

const CSV = [
  'row,to,outcome,statusDescription',
  '1,4741000001,accepted,Accepted',
  '2,4741000002,rejected,"two\nlines, and ""quotes"""',
  "3,4741000003,rejected,'=formula",
  '12,4741000012,accepted,Accepted',
  '21,4741000021,accepted,Accepted',
].join('\n');

const NDJSON = [
  '{"row":1,"outcome":"accepted"}',
  '{"outcome":"rejected","row":2}',
  'not json',
  '{"row":12,"outcome":"accepted"}',
  '{"row":21,"outcome":"accepted"}',
].join('\n');

const JSON_REPORT = `[\n  {"row":1,"outcome":"accepted"},\n  {"row":12,"outcome":"rejected"}\n]\n`;

/** What readReport gives for the same rows: the reference. */
async function readAll(path: string, wanted: (row: number) => boolean) {
  const rows = [];
  for await (const entry of readReport(path)) {
    if (entry.kind === 'row' && wanted(Number(entry.values['row']))) rows.push(entry.values);
  }
  return rows;
}

async function picked(path: string, wanted: (row: number) => boolean) {
  const rows = [];
  for await (const values of pickRows(path, wanted)) rows.push(values);
  return rows;
}

describe('pickRows', () => {
  it.each([
    ['csv', 'r.csv', `${CSV}\n`, [2, 3, 21]],
    ['csv with a BOM and CRLF-free rows', 'bom.csv', `\uFEFF${CSV}\n`, [1, 12]],
    [
      'csv whose first column is not row',
      'cols.csv',
      'to,row,outcome\n47,5,accepted\n46,6,x\n',
      [6],
    ],
    ['ndjson, keys in any order', 'r.ndjson', `${NDJSON}\n`, [2, 12]],
    ['json', 'r.json', JSON_REPORT, [12]],
  ])('%s: the wanted rows, as readReport reads them', async (_name, file, text, rows) => {
    const path = join(dir.path, file);
    await writeFile(path, text);
    const wanted = (row: number) => rows.includes(row);
    const expected = await readAll(path, wanted);
    expect(expected.map((r) => Number(r['row']))).toEqual(rows);
    expect(await picked(path, wanted)).toEqual(expected);
  });

  it('row 1 is not row 12 nor 21: a number is read whole', async () => {
    const path = join(dir.path, 'prefix.csv');
    await writeFile(path, `${CSV}\n`);
    expect((await picked(path, (row) => row === 1)).map((r) => r['row'])).toEqual(['1']);
  });

  it.each([
    ['csv', 'torn.csv', `${CSV}\n22,4741000022,accep`],
    ['ndjson', 'torn.ndjson', `${NDJSON}\n{"row":22,"outc`],
  ])('%s: a last line cut short by a crash is no row', async (_name, file, text) => {
    const path = join(dir.path, file);
    await writeFile(path, text);
    expect(await picked(path, (row) => row === 22)).toEqual([]);
    expect((await picked(path, (row) => row === 21)).map((r) => Number(r['row']))).toEqual([21]);
  });

  it('a quoted cell that never closes gives up on its row, not on the rows after it', async () => {
    const path = join(dir.path, 'open.csv');
    const open = '5,4741000005,rejected,"no end';
    const rest = Array.from({ length: 70 }, (_, i) => `${100 + i},47,accepted,ok`);
    await writeFile(path, `row,to,outcome,statusDescription\n${open}\n${rest.join('\n')}\n`);
    const rows = await picked(path, (row) => row === 5 || row === 169);
    expect(rows.map((r) => r['row'])).toEqual(['169']);
  });
});
