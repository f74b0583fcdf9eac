// A secret setting that fails its checks is named with what is wrong and where it was set, never
// its value: every secret of the settings table, every way it can be invalid, every source.
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderError } from '../../src/cli/ui/error.js';
import { resolveSettings, type ResolveInput } from '../../src/config/resolve.js';
import { secretSafe } from '../../src/config/schema.js';
import { SETTING_KEYS, SETTINGS } from '../../src/config/table.js';
import { UsageError } from '../../src/shared/errors.js';
import { tempDir } from '../helpers/files.js';

const SECRETS = SETTING_KEYS.filter((key) => SETTINGS[key].secret === true);
const CORE = 'Zq7"xK\\p9$Wm#Leak-Me';

/** Text values a secret can fail with, each holding the distinctive core. */
const BAD_TEXT: readonly [string, string, RegExp][] = [
  ['longer than 128 characters', `${CORE}-${'7'.repeat(120)}`, /longer than 128 characters/],
  ['a line break', `${CORE}\n2nd-line`, /contains a line break/],
  ['a carriage return', `${CORE}\rrest`, /contains a line break/],
];

/** Values only a config file can give, beside the text ones. */
const BAD_SHAPES: readonly [string, unknown][] = [
  ['a number', 94712345678901],
  ['a list', [CORE]],
  ['an object', { value: CORE }],
  ['true', true],
];

/** Every form in which a value could be echoed: raw, JSON-escaped, URL-encoded, base64, and pieces. */
function forbiddenForms(value: unknown): string[] {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  const forms = [text, JSON.stringify(text).slice(1, -1), encodeURIComponent(text)];
  forms.push(Buffer.from(text).toString('base64').replace(/=+$/, ''));
  for (const piece of ['Zq7"xK', 'p9$Wm', 'Leak-Me', '2nd-line', '94712345678901', '7777777']) {
    if (text.includes(piece)) forms.push(piece, JSON.stringify(piece).slice(1, -1));
  }
  if (typeof value === 'string' && value.length > 128) forms.push(value.slice(0, 40));
  return forms;
}

/** What a refused run prints, both ways main.ts can print it (stderr, and --json on stdout). */
async function outputsOf(input: ResolveInput): Promise<{ error: UsageError; text: string }> {
  const error = await resolveSettings(input).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(UsageError);
  const human = renderError(error, false);
  const json = renderError(error, true);
  expect([human.stream, json.stream, json.exitCode]).toEqual(['stderr', 'stdout', 2]);
  return { error: error as UsageError, text: `${human.text}\n${json.text}` };
}

function expectNoValue(text: string, value: unknown): void {
  for (const form of forbiddenForms(value)) expect(text).not.toContain(form);
}

let dir: string;
let remove: () => Promise<void>;
beforeAll(async () => ({ path: dir, remove } = await tempDir()));
afterAll(() => remove());

let folders = 0;
/** A config file in a folder of its own, named by a counter: no value may show in a path. */
async function configFile(content: Record<string, unknown>): Promise<string> {
  const folder = join(dir, `config-${++folders}`);
  await mkdir(folder, { recursive: true });
  const file = join(folder, '.sms-sendrc.json');
  await writeFile(file, JSON.stringify(content));
  await chmod(file, 0o600);
  return folder;
}

const base = (cwd: string, extra: Partial<ResolveInput> = {}): ResolveInput => ({
  cwd,
  env: { HOME: dir },
  flags: {},
  ...extra,
});

describe('the settings table marks its secrets', () => {
  it('the password is one', () => {
    expect(SECRETS).toContain('password');
  });
});

describe.each(SECRETS)('a secret setting (%s) that fails its checks is never shown', (key) => {
  const envName: string | undefined = SETTINGS[key].env;

  it.each(BAD_TEXT)('from its variable: %s', async (_label, value, reason) => {
    if (envName === undefined) return;
    const { error, text } = await outputsOf(base(dir, { env: { HOME: dir, [envName]: value } }));
    expectNoValue(text, value);
    expect(error.problems).toEqual([
      { file: 'the settings', field: envName, reason: expect.stringMatching(reason) as string },
    ]);
  });

  it.each([...BAD_TEXT.map(([l, v]) => [l, v] as const), ...BAD_SHAPES])(
    'from a config file and from a profile: %s',
    async (_label, value) => {
      const cwd = await configFile({
        [key]: value,
        profiles: { ci: { [key]: value } },
      });
      const { error, text } = await outputsOf(base(cwd, { profile: 'ci' }));
      expectNoValue(text, value);
      expect(error.problems?.map((p) => p.field)).toEqual([key, `profiles.ci.${key}`]);
      for (const problem of error.problems ?? []) expect(problem.reason).not.toBe('');
    },
  );
});

describe('the password from the places that hold it outside the settings', () => {
  it.each(BAD_TEXT)('from --password-stdin: %s', async (_label, value, reason) => {
    const { error, text } = await outputsOf(base(dir, { stdinPassword: value }));
    expectNoValue(text, value);
    expect(error.problems).toEqual([
      {
        file: 'the settings',
        field: '--password-stdin',
        reason: expect.stringMatching(reason) as string,
      },
    ]);
  });

  it.each(BAD_TEXT)('from the variable passwordEnv names: %s', async (_label, value, reason) => {
    const cwd = await configFile({ passwordEnv: 'MY_SMS_PASSWORD' });
    const { error, text } = await outputsOf(
      base(cwd, { env: { HOME: dir, MY_SMS_PASSWORD: value } }),
    );
    expectNoValue(text, value);
    expect(error.problems).toEqual([
      {
        file: 'the settings',
        field: 'MY_SMS_PASSWORD (named by passwordEnv)',
        reason: expect.stringMatching(reason) as string,
      },
    ]);
  });

  it.each(BAD_TEXT)('from passwordFile: %s', async (_label, value, reason) => {
    const cwd = await configFile({ passwordFile: 'secret.txt' });
    const secret = join(cwd, 'secret.txt');
    await writeFile(secret, `${value}\n`, { mode: 0o600 });
    const { error, text } = await outputsOf(base(cwd));
    expectNoValue(text, value);
    expect(error.problems).toEqual([
      {
        file: 'the settings',
        field: `passwordFile ${secret}`,
        reason: expect.stringMatching(reason) as string,
      },
    ]);
  });

  it('a password file ending in one line break is read without it, and passes', async () => {
    const cwd = await configFile({ passwordFile: 'ok.txt' });
    await writeFile(join(cwd, 'ok.txt'), `${CORE}\r\n`, { mode: 0o600 });
    const settings = await resolveSettings(base(cwd));
    expect(settings.password).toBe(CORE);
  });
});

describe('a config file that does not parse is named by line and column, without its text', () => {
  const PASSWORD = 'Hunter2-Secret-9f3';
  it.each([
    [
      '.sms-sendrc.json',
      `{"username": "u",\n "password": "${PASSWORD}",\n "endpoint" "x"}\n`,
      // V8's wording of the reason differs between Node versions; the place does not.
      ":3:13: (Unexpected string|Expected ':' after property name)",
    ],
    ['.sms-sendrc.json', `{"password": "${PASSWORD}", "a": tru}`, ": Unexpected token '}'"],
    [
      '.sms-sendrc.yaml',
      `username: u\npassword: "${PASSWORD}\nendpoint: x\n`,
      ':4:1: unexpected end of the stream within a double quoted scalar',
    ],
    [
      'sms-send.config.cjs',
      `module.exports = {\n  password: "${PASSWORD}", x: ;\n};\n`,
      ":2: Unexpected token ';'",
    ],
    // The parser's reason and place, not the loading cycle that require() meets after import().
    [
      'sms-send.config.mjs',
      `export default {\n  password: "${PASSWORD}",,\n};\n`,
      ":2:\\d+: Unexpected token ','",
    ],
  ])('%s: %j', async (name, content, where) => {
    const folder = join(dir, `syntax-${name}-${content.length}`);
    await mkdir(folder, { recursive: true });
    await writeFile(join(folder, name), content, { mode: 0o600 });
    const { error, text } = await outputsOf(base(folder));
    expect(error.message).toMatch(new RegExp(`^cannot read config ${join(folder, name)}${where}$`));
    expectNoValue(text, PASSWORD);
    expect(text).not.toContain('Hunter2');
  });
});

describe('a package.json in the working folder that does not parse', () => {
  it('is one line naming the file, line and column, as any config file', async () => {
    const PASSWORD = 'Hunter2-Secret-9f3';
    const folder = join(dir, 'working-folder');
    await mkdir(folder, { recursive: true });
    const content = `{"name": "x",\n "sms-send": {"password": "${PASSWORD}",}}\n`;
    await writeFile(join(folder, 'package.json'), content, { mode: 0o600 });
    const before = process.cwd();
    // cosmiconfig looks for its own settings in the process's working folder, not the one given.
    process.chdir(folder);
    try {
      const { error, text } = await outputsOf(base(folder));
      expect(error.message).toMatch(
        new RegExp(`^cannot read config ${join(folder, 'package.json')}:2:\\d+: [^\\n]+$`),
      );
      expect(text).not.toContain('Hunter2');
    } finally {
      process.chdir(before);
    }
  });
});

describe('secretSafe: the net under the table’s own messages', () => {
  it.each<[string, unknown, string]>([
    ['a message quoting the value', 'abcdefghij', 'Invalid type: received "abcdefghij"'],
    ['eight characters of it', 'abcdefghij', 'got …cdefghij'],
    ['a JSON-escaped piece', 'ab"cdefghij', 'got ab\\"cdefgh'],
    ['a number quoted', 94712345678, 'received 94712345678'],
  ])('%s → not shown', (_label, value, message) => {
    expect(secretSafe(message, value)).toBe('is not valid (the value is not shown)');
  });

  it.each<[string, unknown, string]>([
    ['a message of its own words', 'abcdefghij', 'longer than 128 characters'],
    ['a value that is no text', { a: 1 }, 'must be text'],
  ])('%s → kept', (_label, value, message) => {
    expect(secretSafe(message, value)).toBe(message);
  });
});
