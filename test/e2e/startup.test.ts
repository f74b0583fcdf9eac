// What a run loads: start-up is paid by every cron line and CI step, so a run that sends nothing
// loads no HTTP client (see the Benchmark section).
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/simulator/index.js';
import { runCli } from '../helpers/cli.js';
import { mobile, tempDir } from '../helpers/files.js';

const MODULE_LOG = new URL('../helpers/module-log.js', import.meta.url).href;

let dir: Awaited<ReturnType<typeof tempDir>>;
beforeAll(async () => {
  dir = await tempDir();
  const rows = Array.from({ length: 5 }, (_, i) => `${mobile(i)},Hello ${i}`);
  await writeFile(join(dir.path, 'campaign.csv'), `to,text\n${rows.join('\n')}\n`);
});
afterAll(() => dir.remove());

describe('a dry run with prices', () => {
  it('checks and prices numbers without loading the gateway client or undici', async () => {
    const log = join(dir.path, 'modules.txt');
    const result = await runCli(
      ['campaign.csv', '--dry-run', '--price-per-segment', '47=0.35,default=0.5'],
      {
        cwd: dir.path,
        env: { NODE_OPTIONS: `--import ${MODULE_LOG}`, SMS_SEND_TEST_MODULE_LOG: log },
      },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/cost\s+1\.75/);
    const loaded = (await readFile(log, 'utf8')).trim().split('\n');
    expect(loaded.some((url) => url.includes('/dist/validate/plan.js'))).toBe(true);
    // undici's package entry is about 110 modules, loaded only when a send starts.
    expect(loaded.filter((url) => /\/undici\/|\/gateway\/client\.js$/.test(url))).toEqual([]);
  });
});

describe('check', () => {
  it('reads no phone number: the number library is not loaded', async () => {
    const sim = await startSimulator({});
    try {
      const log = join(dir.path, 'check-modules.txt');
      const result = await runCli(['check', '--endpoint', sim.url], {
        cwd: dir.path,
        env: {
          NODE_OPTIONS: `--import ${MODULE_LOG}`,
          SMS_SEND_TEST_MODULE_LOG: log,
          SMS_SEND_USERNAME: 'u',
          SMS_SEND_PASSWORD: 'p',
        },
      });
      expect(result.code, result.stderr).toBe(0);
      const loaded = (await readFile(log, 'utf8')).trim().split('\n');
      // The log sees CommonJS too: undici, which check does use, is in it.
      expect(loaded.some((url) => url.includes('/node_modules/undici/'))).toBe(true);
      expect(loaded.filter((url) => url.includes('/libphonenumber-js/'))).toEqual([]);
    } finally {
      await sim.stop();
    }
  });
});

describe('--help', () => {
  it('loads no gateway client, no server, no number library and no database driver', async () => {
    const log = join(dir.path, 'help-modules.txt');
    const result = await runCli(['--help'], {
      cwd: dir.path,
      env: { NODE_OPTIONS: `--import ${MODULE_LOG}`, SMS_SEND_TEST_MODULE_LOG: log },
    });
    expect(result.code, result.stderr).toBe(0);
    const loaded = (await readFile(log, 'utf8')).trim().split('\n');
    expect(loaded.some((url) => url.includes('/dist/cli/program.js'))).toBe(true);
    expect(
      loaded.filter((url) =>
        /\/undici\/|\/libphonenumber-js\/|\/node_modules\/pg\/|\/gateway\/client\.js$|\/simulator\/server\.js$|\/dlr\/receiver\.js$/.test(
          url,
        ),
      ),
    ).toEqual([]);
  });
});
