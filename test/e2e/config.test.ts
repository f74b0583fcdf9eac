// Configuration as the binary resolves it, from fixture folders (test/fixtures/config/<case>/) copied
// to a temp folder and used as the working directory: defaults < file < env < flags, profiles,
// every problem in a file at once, password files that others can read, --config PATH.
import { chmod, cp, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { CliResult } from '../helpers/cli.js';
import { runInProcess } from '../helpers/in-process.js';
import { suiteFolder } from '../helpers/suite.js';

/** An asymmetric matcher typed as unknown, so it sits in an object literal without `any`. */
const including = (text: string): unknown => expect.stringContaining(text) as unknown;

const FIXTURES = fileURLToPath(new URL('../fixtures/config/', import.meta.url));

const suite = suiteFolder();
let copies = 0;

/** A private copy of a fixture folder, to run in and to chmod. */
async function fixture(name: string): Promise<string> {
  const target = join(suite.root, `${++copies}-${name}`);
  await cp(join(FIXTURES, name), target, { recursive: true });
  return target;
}

/** An empty folder: no config file anywhere below the temp suite.root. */
async function emptyFolder(): Promise<string> {
  const target = join(suite.root, `${++copies}-empty`);
  await mkdir(target);
  return target;
}

interface Resolved {
  file: string | null;
  profile: string | null;
  settings: Record<string, { value: unknown; source: string }>;
}

function oneDocument(result: CliResult): Record<string, unknown> {
  const lines = result.stdout.split('\n').filter((line) => line.trim() !== '');
  expect(lines, `stdout must hold one JSON document, got:\n${result.stdout}`).toHaveLength(1);
  return JSON.parse(lines[0]!) as Record<string, unknown>;
}

/** `sms-send config --json` in `cwd`: the resolved settings and the source of each. */
async function resolved(
  cwd: string,
  args: string[] = [],
  env: Record<string, string | undefined> = {},
): Promise<Resolved> {
  const result = await runInProcess(['config', '--json', ...args], { cwd, env });
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  return oneDocument(result).config as Resolved;
}

describe('precedence: defaults < config file < environment < flags', () => {
  it('the config file beats the built-in defaults; what it does not set stays default', async () => {
    const cwd = await fixture('precedence');
    const file = join(cwd, '.sms-sendrc.json');
    const config = await resolved(cwd);
    expect(config.file).toBe(file);
    expect(config.profile).toBeNull();
    expect(config.settings).toEqual({
      endpoint: { value: 'https://file.example.com/rest', source: file },
      username: { value: 'file-user', source: file },
      originatorAddress: { value: 'FileCo', source: file },
      customData: { value: { team: 'file', source: 'file' }, source: file },
      batchSize: { value: 3, source: file },
      timeout: { value: '12s', source: file },
      gateway: { value: 99700999, source: 'default' },
      lease: { value: '30s', source: 'default' },
      price: { value: 0, source: 'default' },
      concurrency: { value: 4, source: 'default' },
      retries: { value: 3, source: 'default' },
      outageGrace: { value: '60s', source: 'default' },
      stateDir: { value: process.env.SMS_SEND_STATE_DIR, source: 'env' },
    });
  });

  it('the environment beats the file', async () => {
    const cwd = await fixture('precedence');
    const file = join(cwd, '.sms-sendrc.json');
    const config = await resolved(cwd, [], {
      SMS_SEND_ENDPOINT: 'https://env.example.com/rest',
      SMS_SEND_USERNAME: 'env-user',
      SMS_SEND_PASSWORD: 'env-pass',
    });
    expect(config.settings).toMatchObject({
      endpoint: { value: 'https://env.example.com/rest', source: 'env' },
      username: { value: 'env-user', source: 'env' },
      password: { value: '***', source: 'env' },
      batchSize: { value: 3, source: file },
    });
  });

  it('a flag beats the environment and the file; --custom adds to the file custom data', async () => {
    const cwd = await fixture('precedence');
    const file = join(cwd, '.sms-sendrc.json');
    const flags = ['--endpoint', 'https://flag.example.com/rest', '--batch-size', '9'];
    flags.push('--timeout', '5s', '--from', 'FlagCo', '--custom', 'team=flag');
    const config = await resolved(cwd, flags, {
      SMS_SEND_ENDPOINT: 'https://env.example.com/rest',
    });
    expect(config.settings).toMatchObject({
      endpoint: { value: 'https://flag.example.com/rest', source: 'flag' },
      batchSize: { value: 9, source: 'flag' },
      timeout: { value: '5s', source: 'flag' },
      originatorAddress: { value: 'FlagCo', source: 'flag' },
      customData: { value: { team: 'flag', source: 'file' }, source: 'flag' },
      username: { value: 'file-user', source: file },
    });
  });

  it('a real send uses the resolved values: batches, sender, custom data, endpoint and username', async () => {
    const cwd = await fixture('precedence');
    const credentials = { username: 'env-user', password: 'env-pass' };
    const envGateway = await suite.simulator({ credentials });
    const flagGateway = await suite.simulator({ credentials });
    const env = {
      SMS_SEND_ENDPOINT: envGateway.url,
      SMS_SEND_USERNAME: 'env-user',
      SMS_SEND_PASSWORD: 'env-pass',
    };

    // File + env: the env endpoint and username, the file's batch size, sender and custom data.
    const first = await runInProcess(
      ['campaign.csv', '--report', 'first.csv', '--concurrency', '1'],
      {
        cwd,
        env,
      },
    );
    expect(first.code).toBe(0);
    expect(envGateway.requests.map((r) => r.messageCount)).toEqual([3, 3, 1]);
    expect(envGateway.ledger).toHaveLength(7);
    for (const entry of envGateway.ledger) {
      expect(entry.message).toMatchObject({
        OriginatorAddress: 'FileCo',
        CustomData: { team: 'file', source: 'file' },
      });
    }

    // File + env + flags: the flags win.
    const flags = ['--endpoint', flagGateway.url, '--batch-size', '5'];
    flags.push('--from', 'FlagCo', '--custom', 'team=flag');
    const second = await runInProcess(
      ['campaign.csv', '--report', 'second.csv', '--concurrency', '1', ...flags],
      { cwd, env },
    );
    expect(second.code).toBe(0);
    expect(envGateway.requests).toHaveLength(3);
    expect(flagGateway.requests.map((r) => r.messageCount)).toEqual([5, 2]);
    for (const entry of flagGateway.ledger) {
      expect(entry.message).toMatchObject({
        OriginatorAddress: 'FlagCo',
        CustomData: { team: 'flag', source: 'file' },
      });
    }
  });

  it('is found from a folder below the one that holds it', async () => {
    const top = await fixture('nested');
    const config = await resolved(join(top, 'deep', 'inside'));
    const file = join(top, '.sms-sendrc.json');
    expect(config.file).toBe(file);
    expect(config.settings.endpoint).toEqual({
      value: 'https://nested.example.com/rest',
      source: file,
    });
    expect(config.settings.concurrency).toEqual({ value: 2, source: file });
  });

  it.each([
    ['yaml', '.sms-sendrc.yaml', 'endpoint', 'https://yaml.example.com/rest'],
    ['package-json', 'package.json', 'retries', 5],
  ])('is read from the %s fixture (%s)', async (name, fileName, key, value) => {
    const cwd = await fixture(name);
    const config = await resolved(cwd);
    expect(config.file).toBe(join(cwd, fileName));
    expect(config.settings[key]).toEqual({ value, source: join(cwd, fileName) });
  });
});

describe('profiles', () => {
  it('--profile overrides the top level key by key', async () => {
    const cwd = await fixture('profiles');
    const file = join(cwd, '.sms-sendrc.json');
    const config = await resolved(cwd, ['--profile', 'staging']);
    expect(config.profile).toBe('staging');
    expect(config.settings).toMatchObject({
      endpoint: { value: 'https://staging.example.com/rest', source: `${file}#profiles.staging` },
      batchSize: { value: 20, source: `${file}#profiles.staging` },
      username: { value: 'top-user', source: file },
      originatorAddress: { value: 'TopCo', source: file },
      retries: { value: 3, source: 'default' },
    });
  });

  it('SMS_SEND_PROFILE chooses a profile, and --profile beats it', async () => {
    const cwd = await fixture('profiles');
    const file = join(cwd, '.sms-sendrc.json');
    const [fromEnv, fromFlag] = await Promise.all([
      resolved(cwd, [], { SMS_SEND_PROFILE: 'prod' }),
      resolved(cwd, ['--profile', 'staging'], { SMS_SEND_PROFILE: 'prod' }),
    ]);
    expect(fromEnv.profile).toBe('prod');
    expect(fromEnv.settings).toMatchObject({
      endpoint: { value: 'https://prod.example.com/rest', source: `${file}#profiles.prod` },
      username: { value: 'prod-user', source: `${file}#profiles.prod` },
      retries: { value: 5, source: `${file}#profiles.prod` },
      batchSize: { value: 10, source: file },
    });

    expect(fromFlag.profile).toBe('staging');
    expect(fromFlag.settings.endpoint!.value).toBe('https://staging.example.com/rest');
    expect(fromFlag.settings.username).toEqual({ value: 'top-user', source: file });
  });

  it('the environment and flags still beat a profile', async () => {
    const cwd = await fixture('profiles');
    const config = await resolved(cwd, ['--profile', 'staging', '--batch-size', '7'], {
      SMS_SEND_ENDPOINT: 'https://env.example.com/rest',
    });
    expect(config.settings).toMatchObject({
      endpoint: { value: 'https://env.example.com/rest', source: 'env' },
      batchSize: { value: 7, source: 'flag' },
    });
  });

  it('a profile in a YAML file works the same', async () => {
    const cwd = await fixture('yaml');
    const config = await resolved(cwd, ['--profile', 'night']);
    expect(config.settings.rate).toEqual({
      value: 50,
      source: `${join(cwd, '.sms-sendrc.yaml')}#profiles.night`,
    });
  });

  it('an unknown profile is a usage error (exit 2) naming the defined ones', async () => {
    const cwd = await fixture('profiles');
    const result = await runInProcess(['config', '--profile', 'qa'], { cwd });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('profile "qa" is not defined');
    expect(result.stderr).toContain('(defined: staging, prod)');

    const env = await runInProcess(['config', '--json'], { cwd, env: { SMS_SEND_PROFILE: 'qa' } });
    expect(env.code).toBe(2);
    expect(oneDocument(env)).toEqual({
      error: { code: 'config', message: including('"qa"'), exitCode: 2 },
    });
  });
});

describe('a config file with problems', () => {
  const PROBLEMS = [
    '  Username: unknown key (did you mean "username"?)',
    '  batchSize: must be at least 1',
    '  country: must be a two-letter country code',
    '  endpiont: unknown key',
    '  profiles.broken: ',
    '  profiles.staging.colour: unknown key',
    '  profiles.staging.retries: must not be negative',
    '  timeout: must be a duration such as 30s, 500ms or 2m',
  ];

  it('stops every command with exit 2, listing every problem with its key path', async () => {
    const cwd = await fixture('invalid');
    const file = join(cwd, '.sms-sendrc.json');
    const commands = [['config'], ['check', '--simulate'], ['campaign.csv', '--simulate']];
    const results = await Promise.all(commands.map((args) => runInProcess(args, { cwd })));
    for (const [i, result] of results.entries()) {
      expect([commands[i]![0], result.code]).toEqual([commands[i]![0], 2]);
      expect(result.stdout).toBe('');
      expect(result.stderr).toContain(`${file} has 8 problems:\n`);
      const listed = result.stderr.split('\n').filter((line) => line.startsWith('  '));
      expect(listed).toHaveLength(8);
      PROBLEMS.forEach((problem, i) => expect(listed[i]!.startsWith(problem)).toBe(true));
    }
  });

  it('--json gives the same list in one error document', async () => {
    const cwd = await fixture('invalid');
    const result = await runInProcess(['config', '--json'], { cwd });
    expect(result.code).toBe(2);
    const { error } = oneDocument(result) as { error: { code: string; message: string } };
    expect(error.code).toBe('config');
    for (const problem of PROBLEMS) expect(error.message).toContain(problem);
  });

  it('a malformed endpoint from a flag or the environment is a usage error (exit 2), not a crash', async () => {
    const cwd = await emptyFolder();
    const credentials = { SMS_SEND_USERNAME: 'u', SMS_SEND_PASSWORD: 'p' };
    const [fromFlag, fromEnv] = await Promise.all([
      runInProcess(['check', '--endpoint', 'not-a-url'], { cwd, env: credentials }),
      runInProcess(['check'], {
        cwd,
        env: { ...credentials, SMS_SEND_ENDPOINT: 'ftp://gateway.example.com' },
      }),
    ]);
    for (const [result, value] of [
      [fromFlag, 'not-a-url'],
      [fromEnv, 'ftp://gateway.example.com'],
    ] as const) {
      expect(result.stderr).not.toContain('unexpected error');
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(value);
    }
  });
});

describe('a password that others can read', () => {
  it('passwordFile at 644 earns a warning on stderr naming the file; at 600 none', async () => {
    const cwd = await fixture('password-file');
    const secret = join(cwd, 'secret.txt');
    await chmod(secret, 0o644);
    const loose = await runInProcess(['campaign.csv', '--dry-run'], { cwd });
    expect(loose.code).toBe(0);
    expect(loose.stderr).toBe(
      `warning: ${secret} holds a password and is readable by others; run: chmod 600 ${secret}\n`,
    );

    await chmod(secret, 0o600);
    const tight = await runInProcess(['campaign.csv', '--dry-run'], { cwd });
    expect(tight.code).toBe(0);
    expect(tight.stderr).toBe('');
  });

  it('a config file holding a password at 644 earns the warning; at 600 none', async () => {
    const cwd = await fixture('password-in-config');
    const file = join(cwd, '.sms-sendrc.json');
    await chmod(file, 0o644);
    const loose = await runInProcess(['campaign.csv', '--dry-run'], { cwd });
    expect(loose.code).toBe(0);
    expect(loose.stderr).toContain(`warning: ${file} holds a password and is readable by others`);

    await chmod(file, 0o600);
    const tight = await runInProcess(['campaign.csv', '--dry-run'], { cwd });
    expect(tight.code).toBe(0);
    expect(tight.stderr).toBe('');
  });

  it('check authenticates with the passwordFile password, and warns when the file is 644', async () => {
    const cwd = await fixture('password-file');
    const secret = join(cwd, 'secret.txt');
    const sim = await suite.simulator({
      credentials: { username: 'file-user', password: 'Pw-FILE-5521' },
    });
    await chmod(secret, 0o600);
    const tight = await runInProcess(['check', '--endpoint', sim.url], { cwd });
    expect(tight.code).toBe(0);
    expect(tight.stderr).toBe('');

    await chmod(secret, 0o644);
    const loose = await runInProcess(['check', '--endpoint', sim.url], { cwd });
    expect(loose.code).toBe(0);
    expect(loose.stderr).toContain(`${secret} holds a password and is readable by others`);
  });

  it('config --json does not drop the warning (stderr or the document)', async () => {
    const cwd = await fixture('password-file');
    const secret = join(cwd, 'secret.txt');
    await chmod(secret, 0o644);
    const result = await runInProcess(['config', '--json'], { cwd });
    expect(result.code).toBe(0);
    oneDocument(result);
    expect(`${result.stderr}${result.stdout}`).toContain(
      `${secret} holds a password and is readable by others`,
    );
  });

  it('passwordFile with ~ is read from the home folder', async () => {
    const cwd = await fixture('password-home');
    const home = join(cwd, 'home');
    const secret = join(home, '.config', 'sms-send', 'password');
    await mkdir(join(home, '.config', 'sms-send'), { recursive: true });
    await writeFile(secret, 'Pw-HOME-8812\n', { mode: 0o600 });
    const config = await resolved(cwd, [], { HOME: home });
    expect(config.settings.password).toEqual({ value: '***', source: secret });
    expect(config.settings.username).toEqual({
      value: 'home-user',
      source: join(cwd, '.sms-sendrc.json'),
    });
  });
});

describe('passwordEnv', () => {
  it('reads the variable it names; SMS_SEND_PASSWORD outranks it', async () => {
    const cwd = await fixture('password-env');
    const [named, both] = await Promise.all([
      resolved(cwd, [], { GATEWAY_SECRET: 'from-variable' }),
      resolved(cwd, [], { GATEWAY_SECRET: 'from-variable', SMS_SEND_PASSWORD: 'from-env' }),
    ]);
    expect(named.settings.password).toEqual({ value: '***', source: 'env GATEWAY_SECRET' });
    expect(both.settings.password).toEqual({ value: '***', source: 'env' });
  });

  it('an unset variable is a warning for config (exit 0) naming passwordEnv, its file and the variable', async () => {
    const cwd = await fixture('password-env');
    const result = await runInProcess(['config'], { cwd });
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(
      /warning: passwordEnv \(.*\): the environment variable GATEWAY_SECRET is not set/,
    );
  });
});

describe('--config PATH', () => {
  it('reads the named file instead of the one found in the working folder', async () => {
    const top = await fixture('explicit');
    const team = join(top, 'settings', 'team.json');
    const [config, elsewhere] = await Promise.all([
      resolved(join(top, 'project'), ['--config', '../settings/team.json']),
      emptyFolder().then((cwd) => resolved(cwd, ['--config', team])),
    ]);
    expect(config.file).toBe(team);
    expect(config.settings).toMatchObject({
      endpoint: { value: 'https://team.example.com/rest', source: team },
      batchSize: { value: 12, source: team },
      retries: { value: 3, source: 'default' },
    });

    expect(elsewhere.file).toBe(team);
    expect(elsewhere.settings.batchSize).toEqual({ value: 12, source: team });
  });

  it('a --config file that does not exist is a usage error (exit 2)', async () => {
    const cwd = await fixture('explicit');
    const result = await runInProcess(['config', '--config', 'nowhere.json'], { cwd });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('config file nowhere.json does not exist');
  });
});

describe('a user-level config in $XDG_CONFIG_HOME/sms-send/', () => {
  it('is found from a folder with no config (a cron job run from /), and a project config wins over it', async () => {
    const xdg = await emptyFolder();
    await mkdir(join(xdg, 'sms-send'));
    const user = join(xdg, 'sms-send', 'config.json');
    await writeFile(
      user,
      JSON.stringify({
        endpoint: 'https://user.example/rest',
        profiles: { prod: { batchSize: 50 }, night: { rate: 10, retries: 1 } },
      }),
    );
    const env = { XDG_CONFIG_HOME: xdg };
    const [fromRoot, fromEmpty, fromProject] = await Promise.all([
      resolved('/', [], env),
      emptyFolder().then((cwd) => resolved(cwd, [], env)),
      fixture('precedence').then((cwd) => resolved(cwd, [], env)),
    ]);
    for (const config of [fromRoot, fromEmpty]) {
      expect(config.file).toBe(user);
      expect(config.settings.endpoint).toEqual({
        value: 'https://user.example/rest',
        source: user,
      });
    }
    expect(fromProject.settings.endpoint!.value).toBe('https://file.example.com/rest');

    const profiles = await runInProcess(['config', '--profiles', '--json'], { cwd: '/', env });
    expect(profiles.code).toBe(0);
    expect(JSON.parse(profiles.stdout)).toEqual({
      profiles: { file: user, defined: { prod: ['batchSize'], night: ['rate', 'retries'] } },
    });
    const text = await runInProcess(['config', '--profiles'], { cwd: '/', env });
    expect(text.stdout).toContain(`profiles in ${user}`);
    expect(text.stdout).toMatch(/night {2}rate, retries/);
  });
});
