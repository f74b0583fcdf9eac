// A flag that only restates what sms-send would choose itself (the format a file's name gives, the
// delimiter its header shows, the column it would pick) sends nothing different, so it is the
// same campaign: refused once sent, never sent again. A flag that changes what is sent is another.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mobile, tempDir, writeCampaignCsv } from '../helpers/files.js';
import { runPipeline, type PipelineRun } from '../helpers/pipeline.js';

const RECORDS = 4;
let dir: Awaited<ReturnType<typeof tempDir>>;
let content: string;

beforeAll(async () => {
  dir = await tempDir();
  await writeCampaignCsv(join(dir.path, 'campaign.csv'), RECORDS);
  content = await readFile(join(dir.path, 'campaign.csv'), 'utf8');
  // Two recipient columns: `to` is the one picked by default, `phone` only when asked.
  const lines = ['to,phone,text'];
  for (let i = 0; i < RECORDS; i++) lines.push(`${mobile(i)},${mobile(50 + i)},Hi ${i}`);
  await writeFile(join(dir.path, 'two.csv'), `${lines.join('\n')}\n`);
});
afterAll(() => dir.remove());

/** A run against its own simulator, with campaign state in `state` (shared between runs). */
function send(state: string, args: string[], stdin?: string): Promise<PipelineRun> {
  return runPipeline([...args, '--state-dir', join(dir.path, state)], {
    cwd: dir.path,
    workDir: dir.path,
    stdin,
  });
}

const SAME_WAY: [string, string[], string?][] = [
  ['--input-format csv on a .csv file', ['campaign.csv', '--input-format', 'csv']],
  ['--delimiter , on a comma file', ['campaign.csv', '--delimiter', ',']],
  ['--map to=to, the column picked anyway', ['campaign.csv', '--map', 'to=to']],
  ['--map text=TEXT, the column picked anyway', ['campaign.csv', '--map', 'text=TEXT']],
  [
    'all of them at once',
    ['campaign.csv', '--input-format', 'csv', '--delimiter', ',', '--map', 'to=to'],
  ],
  ['the same bytes on standard input', ['-', '--input-format', 'csv']],
];

describe('the same content sent the same way', () => {
  it.each(SAME_WAY)(
    '%s: refused as already sent, nothing reaches the simulator',
    async (_, args) => {
      const state = `state-${SAME_WAY.findIndex(([, a]) => a === args)}`;
      const first = await send(state, ['campaign.csv']);
      expect(first.code).toBe(0);
      expect(first.messages).toHaveLength(RECORDS);

      const again = await send(state, args, content);
      expect(again.code).toBe(2);
      expect(again.error).toContain('was already sent on');
      expect(again.messages).toEqual([]);
    },
  );

  it('in the other order too: a run with the flags first refuses the plain run after it', async () => {
    const first = await send('state-reverse', [
      'campaign.csv',
      '--input-format',
      'csv',
      '--map',
      'to=to',
    ]);
    expect(first.code).toBe(0);
    const again = await send('state-reverse', ['campaign.csv']);
    expect([again.code, again.messages.length]).toEqual([2, 0]);
  });
});

describe('a file name never makes another campaign', () => {
  // The same bytes under another name, read the same way, are the same campaign.
  const NAMES: [string, [string, string[]], [string, string[]]][] = [
    [
      'a file without an extension, then the same bytes on standard input',
      ['contacts', ['send', 'contacts', '--input-format', 'csv']],
      ['-', ['send', '-', '--input-format', 'csv']],
    ],
    [
      'a .csv file, then a copy named .dat',
      ['list.csv', ['list.csv', '--input-format', 'csv']],
      ['list.dat', ['list.dat', '--input-format', 'csv']],
    ],
    [
      'a .tsv file, then a copy named .csv with --delimiter tab',
      ['list.tsv', ['list.tsv']],
      ['copy.csv', ['copy.csv', '--delimiter', '\t']],
    ],
  ];
  const BOTH_WAYS = NAMES.flatMap(([title, a, b]) => [
    [title, a, b] as const,
    [`${title}, the other way round`, b, a] as const,
  ]);
  it.each(BOTH_WAYS)(
    '%s: refused the second time',
    async (_, [firstName, firstArgs], [secondName, secondArgs]) => {
      const state = `state-name-${firstName}-${secondName}`;
      // As many commas as tabs in the header: split by commas, unless the .tsv name or the flag
      // says tabs (and so it is, with the other files: no comma in a row but in the last column).
      const text = `to\ttext\tc,d,e\n${mobile(1)}\tHi\tz,z,z\n${mobile(2)}\tHo\tz,z,z\n`;
      const commas = `to,text\n${mobile(1)},Hi\n${mobile(2)},Ho\n`;
      const content = [firstName, secondName].includes('list.tsv') ? text : commas;
      for (const name of [firstName, secondName]) {
        if (name !== '-') await writeFile(join(dir.path, name), content);
      }
      const first = await send(state, firstArgs, content);
      expect([first.code, first.messages.length], first.error).toEqual([0, 2]);
      const again = await send(state, secondArgs, content);
      expect(again.code, again.error).toBe(2);
      expect(again.error).toContain('was already sent on');
      expect(again.messages).toEqual([]);
    },
  );
});

describe('a flag that changes what is sent', () => {
  it('--map to=phone sends to the other column: another campaign', async () => {
    const first = await send('state-phone', ['two.csv']);
    expect(first.messages.map((m) => String(m.DestinationAddress))).toEqual(
      Array.from({ length: RECORDS }, (_, i) => mobile(i)),
    );
    const other = await send('state-phone', ['two.csv', '--map', 'to=phone']);
    expect(other.code).toBe(0);
    expect(other.messages.map((m) => String(m.DestinationAddress))).toEqual(
      Array.from({ length: RECORDS }, (_, i) => mobile(50 + i)),
    );
  });
});
