// What of the input settings a campaign's ID counts: only what changes how the bytes are read, so
// spelling out what detection would do anyway never makes another campaign (that would send it all again).
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { identitySettings, type InputSettings } from '../../../src/campaign/steps/implied.js';
import type { InputFile } from '../../../src/input/open.js';
import { tempDir } from '../../helpers/files.js';

/** Each test file's contents, by its name; the header is all that is read. */
const FILES: Record<string, string> = {
  'comma.csv': 'to,text\n4741000000,Hi\n',
  'semi.csv': 'to;text\n4741000000;Hi\n',
  'tab.tsv': 'to\ttext\n4741000000\tHi\n',
  'comma.tsv': 'to,text\n4741000000,Hi\n',
  'phone.csv': 'Phone,Text\n4741000000,Hi\n',
  'both.csv': 'to,mobile,text,body\n4741000000,4741000001,Hi,Ho\n',
  'body.csv': 'to,body\n4741000000,Hi\n',
  'list.json': '[\n{"to":"4741000000","text":"Hi"}\n]\n',
  'data.txt': 'to;text\n4741000000;Hi\n',
};

let dir: Awaited<ReturnType<typeof tempDir>>;
beforeAll(async () => {
  dir = await tempDir();
  for (const [name, text] of Object.entries(FILES)) await writeFile(join(dir.path, name), text);
});
afterAll(async () => {
  await dir.remove();
});

const files = (...names: string[]): InputFile[] =>
  names.map((name) => ({ path: join(dir.path, name), label: name }));

type Case = [
  what: string,
  inputs: string[],
  given: InputSettings,
  template: boolean,
  counted: InputSettings,
];

describe('identitySettings', () => {
  it.each<Case>([
    ['nothing given', ['comma.csv'], { mapping: {} }, false, { mapping: {} }],
    [
      'the delimiter the header suggests',
      ['semi.csv'],
      { delimiter: ';', mapping: {} },
      false,
      { mapping: {} },
    ],
    [
      'another delimiter than the header suggests',
      ['comma.csv'],
      { delimiter: ';', mapping: {} },
      false,
      { delimiter: ';', mapping: {} },
    ],
    ['a .tsv file split by tabs', ['tab.tsv'], { mapping: {} }, false, { mapping: {} }],
    [
      'a .tsv file whose header has commas',
      ['comma.tsv'],
      { mapping: {} },
      false,
      { delimiter: '\t', mapping: {} },
    ],
    [
      'a delimiter one of two files needs',
      ['comma.csv', 'semi.csv'],
      { delimiter: ';', mapping: {} },
      false,
      { delimiter: ';', mapping: {} },
    ],
    [
      // Its first line, read as CSV, would be a header split as given.
      'a JSON input: as given',
      ['list.json'],
      { delimiter: ',', mapping: {} },
      false,
      { delimiter: ',', mapping: {} },
    ],
    [
      'a .tsv file whose header has commas, beside a .csv',
      ['comma.csv', 'comma.tsv'],
      { mapping: {} },
      false,
      { delimiter: '\t', mapping: {} },
    ],
    [
      '--input-format csv on another extension',
      ['data.txt'],
      { inputFormat: 'csv', delimiter: ';', mapping: {} },
      false,
      { mapping: {} },
    ],
    ['--map to=to', ['comma.csv'], { mapping: { to: 'to' } }, false, { mapping: {} }],
    [
      '--map to=phone, the column picked anyway in another case',
      ['phone.csv'],
      { mapping: { to: 'phone' } },
      false,
      { mapping: {} },
    ],
    [
      '--map to=mobile where "to" comes first',
      ['both.csv'],
      { mapping: { to: 'mobile' } },
      false,
      { mapping: { to: 'mobile' } },
    ],
    [
      '--map to=Phone where one file has no such column',
      ['phone.csv', 'comma.csv'],
      { mapping: { to: 'Phone' } },
      false,
      { mapping: { to: 'Phone' } },
    ],
    [
      '--map text=body picked anyway',
      ['body.csv'],
      { mapping: { text: 'body' } },
      false,
      { mapping: {} },
    ],
    [
      '--map text=body where "text" comes first',
      ['both.csv'],
      { mapping: { text: 'body' } },
      false,
      { mapping: { text: 'body' } },
    ],
    [
      '--map text=body with a template, which never reads it',
      ['both.csv'],
      { mapping: { text: 'body' } },
      true,
      { mapping: {} },
    ],
    [
      '--map of both, one implied',
      ['both.csv'],
      { mapping: { to: 'to', text: 'body' } },
      false,
      { mapping: { text: 'body' } },
    ],
    [
      'a file that cannot be read: as given',
      ['missing.csv'],
      { delimiter: ',', mapping: { to: 'to' } },
      false,
      { delimiter: ',', mapping: { to: 'to' } },
    ],
  ])('%s', async (_what, inputs, given, template, counted) => {
    expect(await identitySettings(files(...inputs), given, template)).toEqual(counted);
  });
});
