// A setting whose value is a URL (the state database's, a proxy's) may hold a password: whether it
// is valid or not, and from a flag, the environment or the config file, its value is never printed
// whole, by the settings check that refuses it, by `sms-send config`, or in --json.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { maskUserInfo } from '../../src/shared/url.js';
import { runInProcess } from '../helpers/in-process.js';
import { suiteFolder } from '../helpers/suite.js';

const SECRET = 's3cr3t-pw';
const suite = suiteFolder();

/** Values as a user types them, valid and not: each holds the secret. */
const VALUES = {
  stateUrl: [
    `postgres://sms:${SECRET}@db.example/sms`,
    `postgres//sms:${SECRET}@db.example/sms`,
    `postgresql:/sms:${SECRET}@db.example/sms`,
    `sms:${SECRET}@db.example/sms`,
    `postgres://sms:${SECRET}/x@db.example/sms`,
    `postgres://sms@db.example/sms?password=${SECRET}`,
    `mysql://sms:${SECRET}@db.example/sms`,
  ],
  proxy: [
    `http://pu:${SECRET}@proxy.example:3128`,
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
  const config = join(dir, '.sms-sendrc.json');
  await import('node:fs/promises').then((fs) => fs.mkdir(dir, { recursive: true }));
  if (from === 'file') await writeFile(config, JSON.stringify({ [source.key]: value }));
  const flags = from === 'flag' ? [source.flag, value] : [];
  const result = await runInProcess([...args, ...flags], {
    cwd: dir,
    env: {
      SMS_SEND_STATE_DIR: join(dir, 'state'),
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
    '$setting from the $from, $value: not in a send refused or stopped',
    async (given) => {
      const printed = await withValue(['in.csv', '--simulate', '--dry-run'], given);
      expect(printed).not.toContain(SECRET);
    },
  );
});

describe('maskUserInfo', () => {
  it.each([
    ['postgres://sms:pw@db/sms', 'postgres://***@db/sms'],
    ['--state-url=postgres://sms:pw@db/sms', '--state-url=postgres://***@db/sms'],
    ['postgres//sms:pw@db/sms', 'postgres//***@db/sms'],
    ['sms:pw@db/sms', '***@db/sms'],
    ['postgres://sms:p/w@db/sms', 'postgres://***@db/sms'],
    ['postgres://sms:p@w@db/sms', 'postgres://***@db/sms'],
    [
      'postgres://db/sms?sslmode=require&password=pw',
      'postgres://db/sms?sslmode=require&password=***',
    ],
    ['http://proxy.example:3128', 'http://proxy.example:3128'],
    [
      'the database postgres://***@db/sms did not answer (x@y)',
      'the database postgres://***@db/sms did not answer (x@y)',
    ],
  ])('%s → %s', (text, masked) => {
    expect(maskUserInfo(text)).toBe(masked);
  });
});
