// What only a process shows of TLS: NODE_EXTRA_CA_CERTS, which Node reads once at start, trusts a
// private CA for sms-send with no setting of its own; `config` shows a proxy with its password masked.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';
import { makeCa } from '../helpers/certificates.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/files.js';
import { runInProcess } from '../helpers/in-process.js';

let dir: { path: string; remove: () => Promise<void> };
let caFile: string;
let secure: Simulator;
const env = { SMS_SEND_USERNAME: 'tls-user', SMS_SEND_PASSWORD: 'tls-secret' };

beforeAll(async () => {
  dir = await tempDir();
  const ca = makeCa();
  caFile = join(dir.path, 'ca.pem');
  await writeFile(caFile, ca.cert);
  secure = await startSimulator({ tls: ca.sign(['127.0.0.1']) });
});

afterAll(async () => {
  await secure.stop();
  await dir.remove();
});

describe('a private CA', () => {
  it('NODE_EXTRA_CA_CERTS trusts it with no setting; without, the refusal names both ways', async () => {
    const state = { SMS_SEND_STATE_DIR: join(dir.path, 'state') };
    const trusted = await runCli(['check', '--endpoint', secure.url], {
      env: { ...env, ...state, NODE_EXTRA_CA_CERTS: caFile },
    });
    expect(trusted.code, trusted.stderr).toBe(0);
    expect(trusted.stdout).toContain('✔ gateway check passed');
    expect(trusted.stdout).toMatch(/proxy {11}none/);
    const refused = await runInProcess(['check', '--endpoint', secure.url], {
      env: { ...env, ...state },
    });
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain(new URL(secure.url).host);
    expect(refused.stderr).toContain('--ca-file (caFile, SMS_SEND_CA_FILE) or NODE_EXTRA_CA_CERTS');
  });
});

describe('sms-send config', () => {
  it('shows the proxy with its password masked, and where it came from', async () => {
    const shown = await runInProcess(['config', '--json'], {
      env: {
        SMS_SEND_PROXY: 'http://corp:hunter2@proxy.example:3128',
        SMS_SEND_STATE_DIR: dir.path,
      },
    });
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).not.toContain('hunter2');
    const { config } = JSON.parse(shown.stdout) as {
      config: { settings: Record<string, { value: unknown; source: string }> };
    };
    expect(config.settings.proxy).toEqual({
      value: 'http://***@proxy.example:3128',
      source: 'env',
    });
  });
});
