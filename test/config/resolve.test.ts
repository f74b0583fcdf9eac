// resolveSettings by tables: which layer wins, what a relative path is relative to, where state
// lives by default, which proxies the environment names, and how a bad value is refused.
import { mkdir, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, expectTypeOf, it, vi } from 'vitest';
import { resolveSettings, type ResolveInput } from '../../src/config/resolve.js';
import type { Settings } from '../../src/config/settings.js';
import { SETTING_KEYS, SETTINGS, type SettingSpec } from '../../src/config/table.js';
import { parseDuration } from '../../src/shared/duration.js';
import { UsageError } from '../../src/shared/errors.js';
import { tempDir } from '../helpers/files.js';

let dir: Awaited<ReturnType<typeof tempDir>>;
/** The working folder of every case: no config file in it, one folder below the config file's. */
let cwd: string;
/** A config file in a folder of its own, with a profile `p`. */
let configPath: string;
let configDir: string;

beforeAll(async () => {
  dir = await tempDir();
  configDir = join(dir.path, 'conf');
  cwd = join(dir.path, 'work');
  await mkdir(configDir, { recursive: true });
  await mkdir(cwd, { recursive: true });
});
afterAll(() => dir.remove());
afterEach(() => vi.unstubAllEnvs());

/** Writes the config file (top level and profile `p`) and resolves with it. */
async function withFile(
  top: Record<string, unknown>,
  profile: Record<string, unknown> | undefined,
  input: Partial<ResolveInput> = {},
): Promise<Settings> {
  configPath = join(configDir, `.sms-sendrc-${Math.random().toString(36).slice(2)}.json`);
  await writeFile(
    configPath,
    JSON.stringify({ ...top, ...(profile ? { profiles: { p: profile } } : {}) }),
  );
  return resolveSettings({
    cwd,
    env: {},
    flags: {},
    configPath,
    ...(profile ? { profile: 'p' } : {}),
    ...input,
  });
}

/** Resolves with no config file at all: the user-level folder is an empty one. */
function withoutFile(input: Partial<ResolveInput>): Promise<Settings> {
  vi.stubEnv('XDG_CONFIG_HOME', join(dir.path, 'no-user-config'));
  return resolveSettings({ cwd, env: {}, flags: {}, ...input });
}

describe('a higher layer wins: flag > env > profile > file > default', () => {
  // Each row sets the lease in every layer up to one: the highest given must be the one kept.
  const layers = {
    file: { lease: '40s' },
    profile: { lease: '50s' },
    env: { SMS_SEND_LEASE: '60s' },
    flags: { lease: '70s' },
  };
  it.each([
    ['default', 30_000, 'default', {}],
    ['file', 40_000, 'file', { file: true }],
    ['profile', 50_000, 'profile', { file: true, profile: true }],
    ['env', 60_000, 'env', { file: true, profile: true, env: true }],
    ['flag', 70_000, 'flag', { file: true, profile: true, env: true, flags: true }],
    ['flag over a file alone', 70_000, 'flag', { file: true, flags: true }],
    ['env over a file alone', 60_000, 'env', { file: true, env: true }],
  ] as const)('%s', async (_name, leaseMs, source, given) => {
    const has = given as { file?: true; profile?: true; env?: true; flags?: true };
    const settings = await withFile(
      has.file ? layers.file : {},
      has.profile ? layers.profile : undefined,
      { env: has.env ? layers.env : {}, flags: has.flags ? layers.flags : {} },
    );
    expect(settings.leaseMs).toBe(leaseMs);
    const sources: Record<string, string> = {
      default: 'default',
      file: configPath,
      profile: `${configPath}#profiles.p`,
      env: 'env',
      flag: 'flag',
    };
    expect(settings.sources.lease).toBe(sources[source]);
  });

  it.each([
    ['the file', { endpoint: 'https://file.example/' }, {}, {}, 'https://file.example'],
    [
      'the environment over the file',
      { endpoint: 'https://file.example' },
      { SMS_SEND_ENDPOINT: 'https://env.example//' },
      {},
      'https://env.example',
    ],
    [
      'the flag over both',
      { endpoint: 'https://file.example' },
      { SMS_SEND_ENDPOINT: 'https://env.example' },
      { endpoint: 'https://flag.example/rest/' },
      'https://flag.example/rest',
    ],
  ])('the endpoint from %s, its trailing slashes dropped', async (_name, top, env, flags, want) => {
    const settings = await withFile(top, undefined, { env, flags });
    expect(settings.endpoint).toBe(want);
  });

  it('the built-in defaults fill what no layer sets', async () => {
    const settings = await withoutFile({});
    expect(settings).toMatchObject({
      batchSize: 100,
      concurrency: 4,
      retries: 3,
      timeoutMs: 30_000,
      outageGraceMs: 60_000,
      leaseMs: 30_000,
      gsmNormalize: false,
      strict: false,
      suppress: [],
      defaults: { gateway: 99700999, price: 0, customData: {} },
    });
    expect(settings.rate).toBeUndefined();
    expect(settings.endpoint).toBeUndefined();
    expect(settings.sources.batchSize).toBe('default');
  });

  it('values are normalised: codes upper-cased, rate 0 unlimited, prices by calling code', async () => {
    const settings = await withFile(
      { country: 'no', currency: 'nok', rate: 0, pricePerSegment: { '+47': 0.3, default: 0.5 } },
      undefined,
    );
    expect(settings.country).toBe('NO');
    expect(settings.currency).toBe('NOK');
    expect(settings.rate).toBeUndefined();
    expect(settings.pricePerSegment).toEqual({ '47': 0.3, default: 0.5 });
  });

  it('custom data merges key by key, and suppression lists add up over the layers', async () => {
    const settings = await withFile(
      { customData: { a: 1, b: 1 }, suppress: ['file-list.csv'] },
      undefined,
      { flags: { customData: { b: 2 }, suppress: ['flag-list.csv'] } },
    );
    expect(settings.defaults.customData).toEqual({ a: 1, b: 2 });
    expect(settings.suppress.map((list) => list.path)).toEqual([
      join(configDir, 'file-list.csv'),
      join(cwd, 'flag-list.csv'),
    ]);
  });
});

describe('the table is the settings: each plain entry under its key, a duration under <key>Ms', () => {
  it('holds every default of the table so, normalised as its entry says', async () => {
    const settings = (await withoutFile({})) as unknown as Record<string, unknown>;
    const withDefaults = SETTING_KEYS.filter((key) => SETTINGS[key].default !== undefined);
    for (const key of withDefaults) {
      const spec: SettingSpec = SETTINGS[key];
      if (spec.resolved === 'ms') {
        expect(settings[`${key}Ms`], key).toBe(parseDuration(spec.default as string));
      } else if (spec.resolved === undefined) {
        expect(settings[key], key).toEqual(spec.normalise?.(spec.default) ?? spec.default);
      } else {
        expect(settings, key).not.toHaveProperty(key);
      }
    }
  });

  it('types them from their entries', () => {
    // Checked by the compiler (npm run typecheck): a default makes a plain setting always set.
    expectTypeOf<Settings['concurrency']>().toEqualTypeOf<number>();
    expectTypeOf<Settings['maxSegments']>().toEqualTypeOf<number | undefined>();
    expectTypeOf<Settings['gsmNormalize']>().toEqualTypeOf<boolean>();
    expectTypeOf<Settings['leaseMs']>().toEqualTypeOf<number>();
    expectTypeOf<Settings>().not.toHaveProperty('lease');
    expectTypeOf<Settings>().not.toHaveProperty('gateway');
  });
});

describe('a relative path is relative to where it was set', () => {
  it.each([
    ['the config file', 'file', () => join(configDir, 'certs/ca.pem')],
    ['the environment', 'env', () => join(cwd, 'certs/ca.pem')],
    ['a flag', 'flag', () => join(cwd, 'certs/ca.pem')],
  ] as const)('caFile set in %s', async (_name, where, want) => {
    const settings = await withFile(where === 'file' ? { caFile: 'certs/ca.pem' } : {}, undefined, {
      env: where === 'env' ? { SMS_SEND_CA_FILE: 'certs/ca.pem' } : {},
      flags: where === 'flag' ? { caFile: 'certs/ca.pem' } : {},
    });
    expect(settings.caFile).toBe(want());
  });

  it.each([
    ['the config file', { stateDir: 'state' }, {}, {}, () => join(configDir, 'state')],
    ['a profile', {}, { stateDir: 'p-state' }, {}, () => join(configDir, 'p-state')],
    [
      'a flag',
      { stateDir: 'state' },
      undefined,
      { stateDir: 'flag-state' },
      () => join(cwd, 'flag-state'),
    ],
    ['the home folder', { stateDir: '~/state' }, undefined, {}, () => join(homedir(), 'state')],
  ])('stateDir set in %s', async (_name, top, profile, flags, want) => {
    const settings = await withFile(top, profile, { flags });
    expect(settings.stateDir).toBe(want());
  });

  it('a suppression list keeps its label as written, its path made absolute', async () => {
    const settings = await withFile({ suppress: ['lists/optouts.csv'] }, undefined, {
      flags: { suppress: ['mine.csv'] },
    });
    expect(settings.suppress).toEqual([
      { path: join(configDir, 'lists/optouts.csv'), label: join(configDir, 'lists/optouts.csv') },
      { path: join(cwd, 'mine.csv'), label: 'mine.csv' },
    ]);
  });

  it('a password file is read beside the config file that names it', async () => {
    await writeFile(join(configDir, 'secret.txt'), 'pw-from-file\n', { mode: 0o600 });
    const settings = await withFile({ username: 'u', passwordFile: 'secret.txt' }, undefined);
    expect(settings.password).toBe('pw-from-file');
    expect(settings.sources.password).toBe(join(configDir, 'secret.txt'));
  });
});

describe('the state directory by default', () => {
  it.each([
    ['XDG_STATE_HOME, when absolute', { XDG_STATE_HOME: '/var/xdg' }, '/var/xdg/sms-send'],
    [
      'the home folder, when XDG_STATE_HOME is relative',
      { XDG_STATE_HOME: 'xdg' },
      join(homedir(), '.local/state/sms-send'),
    ],
    ['the home folder, when XDG_STATE_HOME is unset', {}, join(homedir(), '.local/state/sms-send')],
    [
      'SMS_SEND_STATE_DIR over both',
      { XDG_STATE_HOME: '/var/xdg', SMS_SEND_STATE_DIR: '/srv/s' },
      '/srv/s',
    ],
  ])('%s', async (_name, env, want) => {
    const settings = await withoutFile({ env });
    expect(settings.stateDir).toBe(want);
  });
});

describe('proxies from the environment, unless the proxy setting names one', () => {
  const proxy = (url: string, from: string) => ({ url, from });
  it.each([
    ['none', {}, {}, { http: undefined, https: undefined, noProxy: undefined }],
    [
      'HTTPS_PROXY for https, HTTP_PROXY for http',
      { HTTPS_PROXY: 'http://s:1', HTTP_PROXY: 'http://h:1' },
      {},
      { https: proxy('http://s:1', 'HTTPS_PROXY'), http: proxy('http://h:1', 'HTTP_PROXY') },
    ],
    [
      'the lower-case name first',
      { https_proxy: 'http://lower:1', HTTPS_PROXY: 'http://upper:1' },
      {},
      { https: proxy('http://lower:1', 'https_proxy') },
    ],
    [
      'HTTP_PROXY for https too when no https one is set, with NO_PROXY',
      { HTTP_PROXY: 'http://h:1', NO_PROXY: 'gw.example' },
      {},
      { https: proxy('http://h:1', 'HTTP_PROXY'), noProxy: 'gw.example' },
    ],
    [
      'the --proxy flag for both schemes, over the environment',
      { HTTPS_PROXY: 'http://s:1', NO_PROXY: 'gw.example' },
      { proxy: 'http://flag:1' },
      {
        https: proxy('http://flag:1', '--proxy'),
        http: proxy('http://flag:1', '--proxy'),
        noProxy: 'gw.example',
      },
    ],
    [
      'SMS_SEND_PROXY, named as set',
      { SMS_SEND_PROXY: 'http://env:1' },
      {},
      { https: proxy('http://env:1', 'SMS_SEND_PROXY') },
    ],
  ])('%s', async (_name, env, flags, want) => {
    const settings = await withoutFile({ env, flags });
    expect(settings.proxies).toMatchObject(want);
  });

  it('a proxy in the config file is named with the file', async () => {
    const settings = await withFile({ proxy: 'http://file:1' }, undefined);
    expect(settings.proxies.https).toEqual(proxy('http://file:1', `proxy (${configPath})`));
  });
});

describe('a bad value is refused naming the key and where it was set (exit 2)', () => {
  /** The error resolveSettings throws, which must be a UsageError. */
  async function refusal(resolving: Promise<Settings>): Promise<UsageError> {
    const error = await resolving.then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).exitCode).toBe(2);
    return error as UsageError;
  }

  it.each([
    [
      'a flag',
      () => withoutFile({ flags: { batchSize: 0 } }),
      'usage',
      /--batch-size 0: must be at least 1/,
    ],
    [
      'a variable',
      () => withoutFile({ env: { SMS_SEND_LEASE: '10ms' } }),
      'config',
      /SMS_SEND_LEASE "10ms": must be a duration of 1s or more/,
    ],
    [
      'the config file',
      () => withFile({ concurrency: 'four' }, undefined),
      'config',
      () => new RegExp(`${escaped(configPath)} has 1 problem:\\n  concurrency: must be a number`),
    ],
    [
      'a profile',
      () => withFile({}, { retries: -1 }),
      'config',
      /profiles\.p\.retries: must not be negative/,
    ],
    [
      '--max-cost without a price, on the command line',
      () => withoutFile({ flags: { maxCost: 10 } }),
      'usage',
      /\n {2}--max-cost: needs a price per segment/,
    ],
    [
      'maxCost without a price, in the config file',
      () => withFile({ maxCost: 10 }, undefined),
      'config',
      () => new RegExp(`maxCost \\(${escaped(configPath)}\\): needs a price per segment`),
    ],
    [
      'a premium price on a gateway that is not premium, set in the config file',
      () => withFile({ price: 100 }, undefined),
      'config',
      () => new RegExp(`price \\(${escaped(configPath)}\\): `),
    ],
    [
      'a profile the file does not define',
      () => withFile({ profiles: { q: {} } }, undefined, { profile: 'p' }),
      'config',
      /profile "p" is not defined in .* \(defined: q\)/,
    ],
  ] as const)('%s', async (_name, resolving, code, message) => {
    const error = await refusal(resolving());
    expect(error.code).toBe(code);
    expect(error.message).toMatch(typeof message === 'function' ? message() : message);
  });

  it('every problem at once, each with its field for --json', async () => {
    const error = await refusal(withoutFile({ flags: { batchSize: 0, concurrency: 0 } }));
    expect(error.problems?.map((p) => p.field)).toEqual(['--batch-size 0', '--concurrency 0']);
    expect(error.message).toMatch(/has 2 problems|have 2 problems/);
    expect(error.message).toContain('Nothing was sent.');
  });
});

function escaped(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
