// Step one, identify: which settings make a campaign another one (its ID names its state), what
// is refused before any state is looked at, and the report path and --skip-sent-by it resolves.
import { createHash } from 'node:crypto';
import { mkdir, readFile, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  expandReportPath,
  identify,
  type Identified,
} from '../../../src/campaign/steps/identify.js';
import { closeState } from '../../../src/journal/open-store.js';
import { UsageError } from '../../../src/shared/errors.js';
import {
  sendRun,
  stepRun,
  writeList,
  type StepRunOptions,
  StepFolder,
} from '../../helpers/step-run.js';

const folder = new StepFolder(6);

async function identified(options: StepRunOptions = {}): Promise<Identified> {
  const run = await stepRun(folder.dir.path, folder.gateway.url, options);
  try {
    return await identify(run);
  } finally {
    await closeState(run);
  }
}

async function refused(options: StepRunOptions): Promise<UsageError> {
  const error: unknown = await identified(options).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(UsageError);
  return error as UsageError;
}

describe('identify: what makes a campaign another one', () => {
  // A function changes the files instead of the run's options.
  it.each<[string, boolean, StepRunOptions | (() => Promise<void>)]>([
    ['a row of the list changed', false, () => writeList(folder.dir.path, 6, { 3: 'Hi again' })],
    ['a template', false, { template: 'Hello {{to}}' }],
    ['another country', false, { settings: { country: 'SE' } }],
    ['another sender', false, { settings: { originatorAddress: 'Shop' } }],
    ['the columns mapped by hand as found', true, { choices: { map: { to: 'to', text: 'text' } } }],
    ['--limit', true, { choices: { limit: 2 } }],
    ['another batch size', true, { settings: { batchSize: 3 } }],
    ['another report', true, { choices: { report: 'other.json' } }],
  ])('%s: the same campaign, %s', async (_what, same, change) => {
    const before = (await identified()).identity;
    const options = typeof change === 'function' ? await change() : change;
    const after = (await identified(options ?? {})).identity;
    expect(after.id === before.id).toBe(same);
    expect(after.contentHash === before.contentHash).toBe(same);
    expect(after.named).toBe(false);
  });

  it('hashes each input in order: its SHA-256 and its size', async () => {
    await writeList(folder.dir.path, 2, {}, 'second.csv');
    const { hashes } = await identified({ inputs: ['list.csv', 'second.csv'] });
    const expected = await Promise.all(
      ['list.csv', 'second.csv'].map(async (name) => {
        const bytes = await readFile(join(folder.dir.path, name));
        return { sha256: createHash('sha256').update(bytes).digest('hex'), bytes: bytes.length };
      }),
    );
    expect(hashes).toEqual(expected);
  });

  it('a --campaign name, its placeholders filled, is the campaign ID', async () => {
    const named = await identified({ settings: { campaign: 'nightly-{name}' } });
    expect(named.identity).toMatchObject({ id: 'nightly-list', named: true });
    // The name replaces the ID, not the content: the same content unnamed hashes the same.
    expect(named.identity.contentHash).toBe((await identified()).identity.contentHash);
  });

  it('compiles the template and keeps the shape a follow-up rebuilds messages with', async () => {
    const { template, shape } = await identified({ template: 'Hi {{name}}, {{ code }}' });
    expect(template?.placeholders).toEqual(['name', 'code']);
    expect(shape).toMatchObject({ target: 'gateway', template: 'Hi {{name}}, {{ code }}' });
  });
});

describe('identify: refused (exit 2) before the state is looked at', () => {
  it.each([
    ['an input that does not exist', 'missing.csv', 'missing.csv: the input file does not exist'],
    ['an input that is a folder', 'folder', 'folder: is a directory, not a file'],
  ])('%s', async (_what, input, message) => {
    await mkdir(join(folder.dir.path, 'folder'));
    const error = await refused({ inputs: ['list.csv', input] });
    expect(error).toMatchObject({ code: 'input', exitCode: 2, message });
  });

  it.each([
    ['in a folder that does not exist', 'nowhere/r.csv', 'the folder'],
    ['of no report format', 'r.txt', 'the extension must be'],
    ['that is the input itself', 'list.csv', 'is the input list.csv (the same file)'],
    ['that is a link to the input', 'link.csv', 'is the input list.csv (the same file)'],
  ])('a report %s', async (_what, report, words) => {
    await symlink(join(folder.dir.path, 'list.csv'), join(folder.dir.path, 'link.csv'));
    const error = await refused({ choices: { report } });
    expect(error.exitCode).toBe(2);
    expect(error.message).toContain(words);
  });
});

describe('identify: --skip-sent-by', () => {
  it('finds the campaign by the start of its ID, and makes this content a campaign of its own', async () => {
    await sendRun(folder.dir.path, folder.gateway.url, { choices: { limit: 2 } });
    const plain = await identified();
    const skipping = await identified({
      choices: { skipSentBy: [plain.identity.id.slice(0, 6)], report: 'rest.csv' },
    });
    expect(skipping.skipping.map((s) => s.entry.manifest.id)).toEqual([plain.identity.id]);
    expect(skipping.shape.skipSentBy).toEqual([plain.identity.id]);
    expect(skipping.identity.id).not.toBe(plain.identity.id);
    // The campaign it names leaves out whom it sent to: it is no relative to be refused for.
    expect(skipping.relatives).toEqual([]);
  });

  it('refuses a campaign no store here holds', async () => {
    const error = await refused({ choices: { skipSentBy: ['feedbeef'] } });
    expect(error.code).toBe('campaign-unknown');
    expect(error.message).toContain('--skip-sent-by feedbeef: no such campaign in');
  });

  it('refuses the very campaign it is', async () => {
    const settings = { campaign: 'nightly' };
    await sendRun(folder.dir.path, folder.gateway.url, { settings, choices: { limit: 2 } });
    const error = await refused({ settings, choices: { skipSentBy: ['nightly'] } });
    expect(error.code).toBe('usage');
    expect(error.message).toContain('--skip-sent-by nightly names this very campaign');
  });
});

describe('identify: relatives', () => {
  it('names a campaign of other content that read the same input and wrote the report', async () => {
    await sendRun(folder.dir.path, folder.gateway.url);
    const first = (await identified()).identity.id;
    await writeList(folder.dir.path, 6, { 2: 'Fixed' });
    const { identity, relatives } = await identified();
    expect(identity.id).not.toBe(first);
    expect(relatives).toHaveLength(1);
    expect(relatives[0]).toMatchObject({
      entry: { manifest: { id: first } },
      inputs: [join(folder.dir.path, 'list.csv')],
      report: true,
      sameContent: false,
    });
  });
});

describe('expandReportPath', () => {
  const at = new Date(2026, 2, 5, 7, 8, 9);
  it.each([
    ['beside the first input, by default', undefined, 'lists/march.csv', 'lists/march.report.csv'],
    ['for standard input, named by the ID', undefined, '-', 'stdin-abcdef01.report.csv'],
    [
      'with its placeholders filled',
      'out/{name}-{date}-{time}.json',
      'a/b.csv',
      'out/b-2026-03-05-070809.json',
    ],
    ['{name} of standard input', '{name}.csv', '-', 'stdin.csv'],
  ])('%s', (_what, template, input, path) => {
    expect(expandReportPath(template, input, at, 'abcdef0123456789')).toBe(path);
  });
});
