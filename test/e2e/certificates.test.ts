// A gateway whose certificate is refused ends every run at once and true, in a pipe (cron, CI) and
// on a terminal: for another host name, expired, or from a CA nobody named. Exit 3, the host and
// what fixes it, the --json document printed, no lock left, and the API's promises settle.
import { access, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { check, send } from '../../src/index.js';
import { GatewayUnusableError } from '../../src/shared/errors.js';
import type { Simulator } from '../../src/simulator/index.js';
import { makeCa } from '../helpers/certificates.js';
import { runCli } from '../helpers/cli.js';
import { parseCsv, writeCampaignCsv } from '../helpers/files.js';
import { suiteFolder } from '../helpers/suite.js';
import { onTerminal, SCRIPT } from '../helpers/terminal.js';

const suite = suiteFolder();
const RECORDS = 478;
const ENV = { SMS_SEND_USERNAME: 'tls-user', SMS_SEND_PASSWORD: 'tls-secret' };

interface Case {
  name: string;
  /** The certificate the simulator presents, and whether the CA that signed it is named. */
  make: () => { tls: { key: string; cert: string }; trusted: boolean };
  /** What the refusal says beside the host. */
  says: RegExp;
}

const trustedCa = makeCa('sms-send test CA');
const CASES: Case[] = [
  {
    name: 'a certificate for another host name',
    make: () => ({ tls: trustedCa.sign(['other.example']), trusted: true }),
    says: /for another host name .*it is for DNS:other\.example; give --endpoint by a name/,
  },
  {
    name: 'an expired certificate',
    make: () => ({ tls: trustedCa.sign(['127.0.0.1'], { expired: true }), trusted: true }),
    says: /certificate has expired/,
  },
  {
    name: 'a certificate from a CA nobody named',
    make: () => ({ tls: makeCa('unknown CA').sign(['127.0.0.1']), trusted: false }),
    says: /--ca-file \(caFile, SMS_SEND_CA_FILE\) or NODE_EXTRA_CA_CERTS/,
  },
];

let caFile: string;
const gateways = new Map<string, { simulator: Simulator; args: string[]; host: string }>();

beforeAll(async () => {
  caFile = join(suite.path, 'ca.pem');
  await writeFile(caFile, trustedCa.cert);
  await writeCampaignCsv(join(suite.path, 'campaign.csv'), RECORDS);
  for (const c of CASES) {
    const { tls, trusted } = c.make();
    const simulator = await suite.simulator({ tls });
    // By name, so a certificate for another name is what the check meets.
    const endpoint = simulator.url.replace('127.0.0.1', 'localhost');
    const args = ['--endpoint', endpoint, ...(trusted ? ['--ca-file', caFile] : [])];
    gateways.set(c.name, { simulator, args, host: new URL(endpoint).host });
  }
});

const state = (name: string) => ({ SMS_SEND_STATE_DIR: join(suite.path, `${name}-state`) });
const slug = (name: string) => name.replace(/\W+/g, '-');

describe.concurrent.each(CASES)('$name', (c) => {
  it('check --json: exit 3 with its document, naming the host and the fix', async () => {
    const { args, host } = gateways.get(c.name)!;
    const run = await runCli(['check', '--json', ...args], {
      cwd: suite.path,
      env: { ...ENV, ...state(`check-${slug(c.name)}`) },
    });
    expect(run.stderr).not.toContain('unsettled top-level await');
    expect(run.code).toBe(3);
    const { check: result } = JSON.parse(run.stdout) as { check: { ok: boolean; reason: string } };
    expect(result.ok).toBe(false);
    expect(result.reason).toContain(`(${host})`);
    expect(result.reason).toMatch(c.says);
  });

  it('a send in a pipe (cron): exit 3 with its summary, every record failed, no lock left', async () => {
    const { args, simulator } = gateways.get(c.name)!;
    const report = join(suite.path, `${slug(c.name)}.report.csv`);
    const run = await runCli(['campaign.csv', ...args, '--report', report, '--json'], {
      cwd: suite.path,
      env: { ...ENV, ...state(`send-${slug(c.name)}`) },
    });
    expect(run.stderr).not.toContain('unsettled top-level await');
    expect(run.code).toBe(3);
    const { summary } = JSON.parse(run.stdout) as {
      summary: { exitCode: number; byOutcome: Record<string, number> };
    };
    expect(summary.exitCode).toBe(3);
    expect(summary.byOutcome.accepted).toBe(0);
    const rows = parseCsv(await readFile(report, 'utf8'));
    expect(rows).toHaveLength(RECORDS);
    expect(new Set(rows.map((row) => row.outcome))).toEqual(new Set(['failed']));
    await expect(access(`${report}.lock`)).rejects.toThrow(/ENOENT/);
    expect(simulator.ledger).toHaveLength(0);
  });

  it('the API: check() and send() settle, with the typed error', async () => {
    const { simulator } = gateways.get(c.name)!;
    const trusted = gateways.get(c.name)!.args.includes('--ca-file');
    const settings = {
      endpoint: simulator.url.replace('127.0.0.1', 'localhost'),
      username: 'tls-user',
      password: 'tls-secret',
      stateDir: join(suite.path, `api-${slug(c.name)}-state`),
      ...(trusted ? { caFile } : {}),
    };
    const checked = check({ settings, env: {} });
    await expect(checked).rejects.toBeInstanceOf(GatewayUnusableError);
    await expect(checked).rejects.toThrow(c.says);
    const report = join(suite.path, `api-${slug(c.name)}.report.csv`);
    const sent = send({ inputs: [join(suite.path, 'campaign.csv')], report, settings, env: {} });
    await expect(sent).rejects.toBeInstanceOf(GatewayUnusableError);
    await expect(access(`${report}.lock`)).rejects.toThrow(/ENOENT/);
  });
});

describe('a certificate for another name, the endpoint an IP address', () => {
  it("check names the certificate's names, as it does for a host name", async () => {
    const simulator = await suite.simulator({ tls: trustedCa.sign(['other.example']) });
    const run = await runCli(
      ['check', '--json', '--endpoint', simulator.url, '--ca-file', caFile],
      {
        cwd: suite.path,
        env: { ...ENV, ...state('check-by-ip') },
      },
    );
    expect(run.code).toBe(3);
    const { check: result } = JSON.parse(run.stdout) as { check: { reason: string } };
    expect(result.reason).toContain(`(${new URL(simulator.url).host})`);
    expect(result.reason).toMatch(/it is for DNS:other\.example; give --endpoint by a name/);
  });
});

const MISSING = 'script(1) from util-linux is not installed: the pseudo-terminal tests did not run';
describe.runIf(SCRIPT).concurrent.each(CASES)('$name, on a terminal', (c) => {
  it('the send ends by itself with exit 3 and says why', async () => {
    const { args } = gateways.get(c.name)!;
    const report = join(suite.path, `tty-${slug(c.name)}.report.csv`);
    const run = await onTerminal(['campaign.csv', ...args, '--report', report, '--yes'], {
      cwd: suite.path,
      env: { ...ENV, NO_COLOR: '1', ...state(`tty-${slug(c.name)}`) },
    });
    expect(run.code).toBe(3);
    expect(run.screen.replace(/\r?\n\s*/g, ' ')).toMatch(c.says);
    expect(run.screen).toContain('Finish the campaign later with:');
    await expect(access(`${report}.lock`)).rejects.toThrow(/ENOENT/);
  });
});
// Without script(1), the suite lists a skipped test that says why, rather than passing in silence.
if (!SCRIPT) {
  describe('on a terminal', () => {
    it(MISSING, (context) => context.skip());
  });
}
