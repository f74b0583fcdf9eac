// A setting whose value is a URL (the state database's, a proxy's, the endpoint's) may hold a
// password: whether it is valid or not, and from a flag, the environment or the config file, its
// value is never printed whole, by the settings check that refuses it, by `sms-send config`, in
// --json, or where the value is used; and a command printed for the user masks only that, so
// every other word is printed as typed.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commandFor } from '../../src/cli/invocation.js';
import { maskUrl, maskUserInfo } from '../../src/shared/url.js';
import { runInProcess } from '../helpers/in-process.js';
import { suiteFolder } from '../helpers/suite.js';

const SECRET = 's3cr3t-pw';
const suite = suiteFolder();

/** Values as a user types them, valid and not: each holds the secret (nothing listens there). */
const VALUES = {
  stateUrl: [
    `postgres://sms:${SECRET}@127.0.0.1:1/sms`,
    `postgres://sms:${SECRET} x@127.0.0.1:1/sms`,
    `postgres://sms:${SECRET}@127.0.0.1:1/sms?application_name=a@b`,
    `postgres//sms:${SECRET}@db.example/sms`,
    `postgresql:/sms:${SECRET}@db.example/sms`,
    `sms:${SECRET}@db.example/sms`,
    `postgres://sms:${SECRET}/x@db.example/sms`,
    `postgres://sms@127.0.0.1:1/sms?password=${SECRET}`,
    `mysql://sms:${SECRET}@db.example/sms`,
  ],
  proxy: [
    `http://pu:${SECRET}@127.0.0.1:1`,
    `http//pu:${SECRET}@proxy.example:3128`,
    `socks5://pu:${SECRET}@proxy.example:1080`,
    `pu:${SECRET}@proxy.example:3128`,
  ],
};

const SOURCES = {
  stateUrl: { flag: '--state-url', env: 'SMS_SEND_STATE_URL', key: 'stateUrl' },
  proxy: { flag: '--proxy', env: 'SMS_SEND_PROXY', key: 'proxy' },
} as const;

const cases = Object.entries(VALUES).flatMap(([setting, values]) =>
  values.flatMap((value) =>
    (['flag', 'env', 'file'] as const).map((from) => ({
      setting: setting as keyof typeof VALUES,
      value,
      from,
    })),
  ),
);

let runs = 0;

/** `sms-send <args>` with the value given `from` the flag, the environment or a config file. */
async function withValue(
  args: string[],
  { setting, value, from }: (typeof cases)[number],
): Promise<string> {
  const source = SOURCES[setting];
  const dir = join(suite.path, `run-${runs++}`);
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'in.csv'), 'to,text\n4741234567,hello\n');
  if (from === 'file') {
    await writeFile(join(dir, '.sms-sendrc.json'), JSON.stringify({ [source.key]: value }));
  }
  const flags = from === 'flag' ? [source.flag, value] : [];
  const result = await runInProcess([...args, ...flags], {
    cwd: dir,
    env: {
      SMS_SEND_STATE_DIR: join(dir, 'state'),
      SMS_SEND_USERNAME: 'u',
      SMS_SEND_PASSWORD: 'p',
      ...(from === 'env' ? { [source.env]: value } : {}),
    },
  });
  return result.stdout + result.stderr;
}

describe('a URL setting holding a password', () => {
  it.each(cases)('$setting from the $from, $value: not in `config`', async (given) => {
    const printed = await withValue(['config'], given);
    expect(printed).not.toContain(SECRET);
    const json = await withValue(['config', '--json'], given);
    expect(json).not.toContain(SECRET);
  });

  it.each(cases)(
    '$setting from the $from, $value: not in a send refused for it, or stopped where it is used',
    async (given) => {
      const printed = await withValue(
        [
          'in.csv',
          '--endpoint',
          'http://127.0.0.1:1',
          '--yes',
          '--retries',
          '0',
          '--outage-grace',
          '0',
        ],
        given,
      );
      expect(printed).toMatch(/state|proxy|database|gateway/i);
      expect(printed).not.toContain(SECRET);
    },
  );
});

describe('a command printed for the user', () => {
  it.each([
    // Other words stay as typed: the printed command must make the same campaign.
    [['in.csv', '--text', 'Doors 10:30@hall B'], "'Doors 10:30@hall B'"],
    [['in.csv', '--dlr-url', 'https://h/cb?x=a@b'], "'https://h/cb?x=a@b'"],
    [['in.csv', '--custom', 'ref=job:7@eu'], 'ref=job:7@eu'],
    [
      ['in.csv', '--state-url', 'postgres://u:pw@h/db?application_name=a@b'],
      "'postgres://***@h/db?application_name=a@b'",
    ],
    [['in.csv', '--state-url', 'postgres://u:p w@h/db'], "'postgres://***@h/db'"],
    [['in.csv', '--proxy=http://u:p@proxy:3128'], "'--proxy=http://***@proxy:3128'"],
    [['in.csv', '--endpoint', 'https://u:p@gw.example/rest'], "'https://***@gw.example/rest'"],
  ])('%j shows %s', (args, shown) => {
    const command = commandFor({ program: 'sms-send', args }, { add: ['--resume'] });
    expect(command).toContain(` ${shown} `);
    expect(command).not.toMatch(/:pw@|:p@|p w@/);
  });
});

describe('maskUrl, for a value that is a URL', () => {
  it.each([
    ['postgres://sms:pw@db/sms', 'postgres://***@db/sms'],
    ['postgres//sms:pw@db/sms', '***@db/sms'],
    ['sms:pw@db/sms', 'sms:***@db/sms'],
    ['postgres://sms:p/w@db/sms', 'postgres://***@db/sms'],
    ['postgres://sms:p@w@db/sms', 'postgres://***@db/sms'],
    ['postgres://sms:p w@db/sms', 'postgres://***@db/sms'],
    ['postgres://sms:pw@db/sms?application_name=a@b', 'postgres://***@db/sms?application_name=a@b'],
    [
      'postgres://db/sms?sslmode=require&password=pw',
      'postgres://db/sms?sslmode=require&password=***',
    ],
    ['http://proxy.example:3128', 'http://proxy.example:3128'],
  ])('%s → %s', (value, masked) => {
    expect(maskUrl(value)).toBe(masked);
  });
});

describe('maskUserInfo, for text that may hold URLs', () => {
  it.each([
    ['postgres://sms:pw@db/sms', 'postgres://***@db/sms'],
    ['--state-url=postgres://sms:pw@db/sms', '--state-url=postgres://***@db/sms'],
    ['postgres://sms:p@w@db/sms', 'postgres://***@db/sms'],
    [
      'postgres://db/sms?sslmode=require&password=pw',
      'postgres://db/sms?sslmode=require&password=***',
    ],
    ['http://proxy.example:3128', 'http://proxy.example:3128'],
    ['Doors 10:30@hall B', 'Doors 10:30@hall B'],
    ['ref=job:7@eu', 'ref=job:7@eu'],
    [
      'the database postgres://***@db/sms did not answer (x@y)',
      'the database postgres://***@db/sms did not answer (x@y)',
    ],
  ])('%s → %s', (text, masked) => {
    expect(maskUserInfo(text)).toBe(masked);
  });
});
