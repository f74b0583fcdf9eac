// A campaign read from standard input: on a terminal, the run refuses at once rather than wait for
// records typed in; piped, every command it prints says the records must be piped in again, and
// its summary offers no follow-up that cannot read them (`retry` reads the campaign's files).
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';
import { runCli } from '../helpers/cli.js';
import { mobile, tempDir } from '../helpers/files.js';
import { onTerminal, SCRIPT } from '../helpers/terminal.js';

let dir: Awaited<ReturnType<typeof tempDir>>;
let sim: Simulator;
beforeAll(async () => {
  dir = await tempDir();
  sim = await startSimulator({ seed: 8, faults: { rejectMessage: 0.3 } });
});
afterAll(async () => {
  await sim.stop();
  await dir.remove();
});

const records = (count: number) =>
  ['to,text', ...Array.from({ length: count }, (_v, i) => `${mobile(i)},Hello ${i}`)].join('\n');

const env = () => ({
  SMS_SEND_STATE_DIR: join(dir.path, 'state'),
  SMS_SEND_USERNAME: 'u',
  SMS_SEND_PASSWORD: 'p',
});

describe('a campaign from standard input', () => {
  it('a terminal on standard input: refused at once (exit 2), nothing sent', async () => {
    expect(SCRIPT, 'script(1) from util-linux is needed for a terminal').toBe(true);
    const run = await onTerminal(['-', '--input-format', 'csv', '--endpoint', sim.url], {
      cwd: dir.path,
      env: env(),
    });
    expect(run.code, run.screen).toBe(2);
    expect(run.screen).toMatch(/standard input is this terminal: pipe the\s+records in/);
    expect(sim.ledger).toHaveLength(0);
  });

  it('piped: the summary offers no retry, and names --skip-sent-by with a file instead', async () => {
    const run = await runCli(
      ['-', '--input-format', 'csv', '--endpoint', sim.url, '--yes', '--report', 'piped.csv'],
      { cwd: dir.path, env: env(), stdin: `${records(40)}\n` },
    );
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr).toMatch(/read from standard input, which `retry` cannot read again/);
    expect(run.stderr).toMatch(/--skip-sent-by \w+/);
    expect(run.stderr).not.toMatch(/sms-send retry/);
  });

  it('piped and stopped: the printed --resume says to pipe the same records in again', async () => {
    const run = await runCli(
      [
        '-',
        '--input-format',
        'csv',
        '--endpoint',
        'http://127.0.0.1:1',
        '--yes',
        '--outage-grace',
        '0',
      ],
      { cwd: dir.path, env: env(), stdin: `${records(5)}\n` },
    );
    expect(run.code, run.stderr).toBe(3);
    expect(run.stderr).toMatch(
      /with:\n {2}.* - .*\n {2}\(it reads standard input: pipe the same records in again/,
    );
  });
});
