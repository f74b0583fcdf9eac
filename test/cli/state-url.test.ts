// --state-url as a user meets it before any database answers: shown with its password masked,
// refused when it is no postgres:// URL, and a database that cannot be reached stops the run
// before anything is sent (exit 6).
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';
import { tempDir, writeCampaignCsv } from '../helpers/files.js';
import { runInProcess } from '../helpers/in-process.js';
import { freePort } from '../helpers/ports.js';

let dir: Awaited<ReturnType<typeof tempDir>>;
let sim: Simulator;
beforeEach(async () => {
  dir = await tempDir();
  await writeCampaignCsv(join(dir.path, 'campaign.csv'), 5);
  sim = await startSimulator();
});
afterEach(async () => {
  await sim.stop();
  await dir.remove();
});

const env = () => ({
  SMS_SEND_STATE_DIR: join(dir.path, 'state'),
  SMS_SEND_USERNAME: 'u',
  SMS_SEND_PASSWORD: 'p',
});

describe('--state-url', () => {
  it('config shows it with its password masked, as text and as JSON', async () => {
    const url = 'postgres://sms:s3cr@t@db.example:5432/sms';
    for (const json of [false, true]) {
      const shown = await runInProcess(
        ['config', '--state-url', url, ...(json ? ['--json'] : [])],
        {
          cwd: dir.path,
          env: env(),
        },
      );
      expect(shown.code).toBe(0);
      expect(shown.stdout).toContain('postgres://***@db.example:5432/sms');
      expect(shown.stdout).not.toContain('s3cr');
    }
  });

  it.each([
    ['mysql://db/sms', /must be a postgres:\/\/ URL/],
    ['db.example', /must be a postgres:\/\/ URL/],
  ])('%s is refused (exit 2) before anything is read or sent', async (url, message) => {
    const refused = await runInProcess(
      ['campaign.csv', '--endpoint', sim.url, '--state-url', url],
      { cwd: dir.path, env: env() },
    );
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(message);
    expect(sim.ledger).toHaveLength(0);
  });

  it('a database that cannot be reached stops the run before anything is sent (exit 6), its password masked', async () => {
    const port = await freePort();
    const sent = await runInProcess(
      [
        'campaign.csv',
        '--endpoint',
        sim.url,
        '--state-url',
        `postgres://sms:s3cret@127.0.0.1:${port}/sms`,
      ],
      { cwd: dir.path, env: env() },
    );
    expect(sent.code, sent.stderr).toBe(6);
    expect(sent.stderr).toContain(`postgres://***@127.0.0.1:${port}/sms`);
    expect(sent.stderr).not.toContain('s3cret');
    expect(sim.ledger).toHaveLength(0);
  });
});
