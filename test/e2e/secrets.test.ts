// The password never leaves the process: not in output, report, journal or any other file, whatever
// the gateway does; and credentials never go over plain http to a host that is not loopback.
import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { networkInterfaces } from 'node:os';
import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type FaultOptions, type Simulator } from '../../src/simulator/index.js';
import type { CliResult } from '../helpers/cli.js';
import { runInProcess } from '../helpers/in-process.js';
import { parseCsv, writeCampaignCsv } from '../helpers/files.js';
import { stateJournal } from '../helpers/reliability.js';
import { suiteFolder } from '../helpers/suite.js';

/** Asymmetric matchers typed as unknown, so they sit in object literals without `any`. */
const containing = (object: object): unknown => expect.objectContaining(object) as unknown;
const including = (text: string): unknown => expect.stringContaining(text) as unknown;

const USER = 'leak-user';
const PASSWORD = 'Pw-LEAK-7781';
const CREDENTIALS = { SMS_SEND_USERNAME: USER, SMS_SEND_PASSWORD: PASSWORD };

const suite = suiteFolder();
let folders = 0;

async function simulator(
  faults: FaultOptions = {},
  seed = 1,
  host = '127.0.0.1',
): Promise<Simulator> {
  const sim = await suite.simulator({
    credentials: { username: USER, password: PASSWORD },
    faults,
    seed,
    host,
  });
  return sim;
}

/** A fresh folder per run, so "every file in the folder" means this run's files. */
async function folder(name: string): Promise<string> {
  const path = join(suite.root, `${++folders}-${name}`);
  await mkdir(path);
  return path;
}

async function filesUnder(folderPath: string): Promise<string[]> {
  const entries = await readdir(folderPath, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
}

/** Asserts the secret is nowhere: stdout, stderr, and every byte of every file under `folderPath`. */
async function expectNoSecret(
  secret: string,
  results: CliResult[],
  folderPath?: string,
): Promise<void> {
  for (const result of results) {
    expect(result.stdout).not.toContain(secret);
    expect(result.stderr).not.toContain(secret);
  }
  // The campaign state (manifest, journal) is written too, in the test's own state directory.
  const folders = [folderPath, process.env.SMS_SEND_STATE_DIR].filter((f) => f !== undefined);
  for (const folder of folders) {
    for (const file of await filesUnder(folder)) {
      const bytes = await readFile(file);
      expect(bytes.includes(secret), `${file} holds the password`).toBe(false);
    }
  }
}

function oneDocument(result: CliResult): Record<string, unknown> {
  const lines = result.stdout.split('\n').filter((line) => line.trim() !== '');
  expect(lines, `stdout must hold one JSON document, got:\n${result.stdout}`).toHaveLength(1);
  return JSON.parse(lines[0]!) as Record<string, unknown>;
}

describe('the password never leaks', () => {
  it('a run through every fault: not in stdout, stderr, report, campaign state or any file beside them', async () => {
    const sim = await simulator(
      {
        unavailable: 0.15,
        errorAfterProcessing: 0.15,
        resetAfterProcessing: 0.15,
        processResultFalse: 0.15,
        rejectMessage: 0.2,
        retryAfterSeconds: 0,
      },
      5,
    );
    const work = await folder('faults');
    await writeCampaignCsv(join(work, 'campaign.csv'), 40);
    const report = join(work, 'campaign.report.csv');
    const args = ['campaign.csv', '--endpoint', sim.url, '--batch-size', '3', '--concurrency', '1'];
    // --html: the campaign's page is written as the run ends, and it holds no password either.
    const result = await runInProcess([...args, '--verbose', '--html', 'campaign.html'], {
      cwd: work,
      env: CREDENTIALS,
    });
    expect(result.code).toBe(1);
    expect(await readFile(join(work, 'campaign.html'), 'utf8')).toContain('<svg');
    const outcomes = new Set(parseCsv(await readFile(report, 'utf8')).map((r) => r.outcome));
    // The seed gives every kind of trouble, so every code path that writes text ran.
    expect([...outcomes].sort()).toEqual(['accepted', 'failed', 'rejected', 'unknown']);
    expect(result.stderr).toMatch(/retry 1 in \d+ ms \(HTTP 503\)/);
    expect(await filesUnder(work)).toEqual(expect.arrayContaining([report]));
    expect(await filesUnder(process.env.SMS_SEND_STATE_DIR!)).toEqual(
      expect.arrayContaining([
        stateJournal(),
        join(dirname(stateJournal()), 'manifest.json'),
        join(dirname(stateJournal()), 'timeline.json'),
      ]),
    );
    await expectNoSecret(PASSWORD, [result], work);
  });

  it('a run that the gateway stops (ProcessResult false on every batch, exit 3), also with --json', async () => {
    const sim = await simulator({ maxBatchSize: 2 });
    const work = await folder('stopped');
    await writeCampaignCsv(join(work, 'campaign.csv'), 20);
    const args = ['campaign.csv', '--endpoint', sim.url, '--batch-size', '3', '--concurrency', '1'];
    const human = await runInProcess([...args, '--report', 'human.csv', '--verbose'], {
      cwd: work,
      env: CREDENTIALS,
    });
    // The same content again: --force, or the stopped campaign's state would refuse it.
    const json = await runInProcess([...args, '--report', 'machine.json', '--json', '--force'], {
      cwd: work,
      env: CREDENTIALS,
    });
    expect(human.code).toBe(3);
    expect(human.stderr).toContain('Too many messages in one request');
    expect(json.code).toBe(3);
    expect(sim.ledger).toHaveLength(0);
    await expectNoSecret(PASSWORD, [human, json], work);
  });

  it('credentials refused: the wrong password is not echoed by send or check', async () => {
    const wrong = 'Pw-WRONG-3390';
    const sim = await simulator();
    const work = await folder('refused');
    await writeCampaignCsv(join(work, 'campaign.csv'), 4);
    const env = { SMS_SEND_USERNAME: USER, SMS_SEND_PASSWORD: wrong };
    const [send, check, checkJson] = await Promise.all([
      runInProcess(['campaign.csv', '--endpoint', sim.url], { cwd: work, env }),
      runInProcess(['check', '--endpoint', sim.url], { cwd: work, env }),
      runInProcess(['check', '--endpoint', sim.url, '--json'], { cwd: work, env }),
    ]);
    expect([send.code, check.code, checkJson.code]).toEqual([3, 3, 3]);
    expect(send.stderr).toContain('refused the credentials');
    await expectNoSecret(wrong, [send, check, checkJson], work);
  });

  it('check --json carries no password, passing or with a test message', async () => {
    const sim = await simulator();
    const work = await folder('check');
    const [ok, to] = await Promise.all([
      runInProcess(['check', '--endpoint', sim.url, '--json'], { cwd: work, env: CREDENTIALS }),
      runInProcess(['check', '--endpoint', sim.url, '--json', '--to', '4741234567'], {
        cwd: work,
        env: CREDENTIALS,
      }),
    ]);
    expect([ok.code, to.code]).toEqual([0, 0]);
    expect(oneDocument(ok)).toEqual({ check: containing({ ok: true }) });
    expect(oneDocument(to)).toEqual({ check: containing({ ok: true }) });
    expect(sim.ledger).toHaveLength(1);
    await expectNoSecret(PASSWORD, [ok, to], work);
  });

  it('--password-stdin works and the password read from stdin is never shown', async () => {
    const sim = await simulator();
    const work = await folder('stdin');
    const env = { SMS_SEND_USERNAME: USER };
    const check = await runInProcess(['check', '--endpoint', sim.url, '--password-stdin'], {
      cwd: work,
      env,
      stdin: `${PASSWORD}\n`,
    });
    expect(check.code).toBe(0);
    const config = await runInProcess(['config', '--json', '--password-stdin'], {
      cwd: work,
      env,
      stdin: `${PASSWORD}\n`,
    });
    expect(config.code).toBe(0);
    const settings = (oneDocument(config).config as { settings: Record<string, unknown> }).settings;
    expect(settings.password).toEqual({ value: '***', source: 'stdin' });
    await expectNoSecret(PASSWORD, [check, config], work);
  });

  it('a password over 128 characters is refused without a character of it, in stderr and --json', async () => {
    const long = `${'S3cret-'.repeat(19)}X`;
    const work = await folder('long-password');
    const env = { SMS_SEND_USERNAME: 'u', SMS_SEND_PASSWORD: long };
    const runs = [
      await runInProcess(['check', '--endpoint', 'http://127.0.0.1:9', '--json'], {
        cwd: work,
        env,
      }),
      await runInProcess(['check', '--endpoint', 'http://127.0.0.1:9'], { cwd: work, env }),
      await runInProcess(['config', '--json'], { cwd: work, env }),
      await runInProcess(
        ['check', '--endpoint', 'http://127.0.0.1:9', '--password-stdin', '--json'],
        {
          cwd: work,
          env: { SMS_SEND_USERNAME: 'u' },
          stdin: `${long}\n`,
        },
      ),
    ];
    expect(runs.map((r) => r.code)).toEqual([2, 2, 2, 2]);
    const problems = (run: CliResult) =>
      (oneDocument(run).error as { problems: unknown[] }).problems;
    expect(problems(runs[0]!)).toEqual([
      { file: 'the settings', field: 'SMS_SEND_PASSWORD', reason: 'longer than 128 characters' },
    ]);
    expect(runs[1]!.stderr).toContain('SMS_SEND_PASSWORD: longer than 128 characters');
    expect(problems(runs[3]!)).toEqual([
      { file: 'the settings', field: '--password-stdin', reason: 'longer than 128 characters' },
    ]);
    for (const run of runs) expect(`${run.stdout}${run.stderr}`).not.toMatch(/S3cret|UzNjcmV0/);
    await expectNoSecret(long, runs, work);
  });

  it('sms-send config shows *** for a password from the environment, a file, a variable or the config', async () => {
    const work = await folder('config');
    const cases: [string, Record<string, unknown>, Record<string, string>, string][] = [
      ['env', {}, CREDENTIALS, 'env'],
      ['file', { passwordFile: 'secret.txt' }, {}, join(work, 'file', 'secret.txt')],
      ['variable', { passwordEnv: 'GW_SECRET' }, { GW_SECRET: PASSWORD }, 'env GW_SECRET'],
      ['config', { password: PASSWORD }, {}, join(work, 'config', '.sms-sendrc.json')],
    ];
    const runs = cases.map(async ([name, config, env, source]) => {
      const cwd = join(work, name);
      await mkdir(cwd);
      await writeFile(join(cwd, 'secret.txt'), `${PASSWORD}\n`, { mode: 0o600 });
      await writeFile(
        join(cwd, '.sms-sendrc.json'),
        JSON.stringify({ username: USER, ...config }),
        {
          mode: 0o600,
        },
      );
      const [human, json] = await Promise.all([
        runInProcess(['config'], { cwd, env }),
        runInProcess(['config', '--json'], { cwd, env }),
      ]);
      return { name, source, human, json };
    });
    const results: CliResult[] = [];
    for (const { name, source, human, json } of await Promise.all(runs)) {
      expect([name, human.code, json.code]).toEqual([name, 0, 0]);
      expect(human.stdout).toMatch(/password\s+"\*\*\*"/);
      const settings = (oneDocument(json).config as { settings: Record<string, unknown> }).settings;
      expect([name, settings.password]).toEqual([name, { value: '***', source }]);
      results.push(human, json);
    }
    // The folders hold the password on purpose (secret.txt, a config with a password): only the
    // output is checked here.
    await expectNoSecret(PASSWORD, results);
  });
});

interface EchoGateway {
  url: string;
  stop(): Promise<void>;
}

/**
 * A careless gateway that echoes the request's Password back: in its refusal, or in every
 * per-message answer (StatusDescription, TransactionId, ExtraInfo). docs/credentials.md: "text from the
 * gateway or a library that echoes it is masked as ***".
 */
async function echoGateway(mode: 'refusal' | 'messages'): Promise<EchoGateway> {
  const server = createHttpServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      const request = JSON.parse(body) as {
        Username: string;
        Password: string;
        Messages: { MessageId?: string }[];
      };
      const secret = request.Password;
      const answer =
        mode === 'refusal'
          ? {
              ProcessResult: false,
              ProcessResultDescription: `batch refused for ${request.Username}/${secret}`,
              Messages: [],
            }
          : {
              ProcessResult: true,
              ProcessResultDescription: `processed for ${secret}`,
              Messages: request.Messages.map((m, i) => ({
                MessageId: m.MessageId,
                StatusCode: i % 2 === 0 ? 0 : 7,
                StatusDescription: `queued with key ${secret}`,
                TransactionId: `tx-${secret}-${i}`,
                ExtraInfo: { server: 'echo', key: secret },
              })),
            };
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(answer));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('a gateway that echoes the password', () => {
  it('in its refusal: masked as *** in output, report and journal', async () => {
    const gateway = await echoGateway('refusal');
    try {
      const work = await folder('echo-refusal');
      await writeCampaignCsv(join(work, 'campaign.csv'), 2);
      const [send, check] = await Promise.all([
        runInProcess(['campaign.csv', '--endpoint', gateway.url], { cwd: work, env: CREDENTIALS }),
        runInProcess(['check', '--endpoint', gateway.url, '--json'], {
          cwd: work,
          env: CREDENTIALS,
        }),
      ]);
      expect(send.code).toBe(1);
      expect(check.code).toBe(3);
      const rows = parseCsv(await readFile(join(work, 'campaign.report.csv'), 'utf8'));
      expect(rows.map((r) => r.error)).toEqual([
        `gateway refused the request: batch refused for ${USER}/***`,
        `gateway refused the request: batch refused for ${USER}/***`,
      ]);
      await expectNoSecret(PASSWORD, [send, check], work);
    } finally {
      await gateway.stop();
    }
  });

  it('in per-message answers: masked as *** in the summary, the report and the journal', async () => {
    const gateway = await echoGateway('messages');
    try {
      const work = await folder('echo-messages');
      await writeCampaignCsv(join(work, 'campaign.csv'), 2);
      const send = await runInProcess(['campaign.csv', '--endpoint', gateway.url], {
        cwd: work,
        env: CREDENTIALS,
      });
      expect(send.code).toBe(1);
      const rows = parseCsv(await readFile(join(work, 'campaign.report.csv'), 'utf8'));
      expect(rows.map((r) => r.outcome).sort()).toEqual(['accepted', 'rejected']);
      await expectNoSecret(PASSWORD, [send], work);
    } finally {
      await gateway.stop();
    }
  });

  it('in the answer to check --to: masked in the check document', async () => {
    const gateway = await echoGateway('messages');
    try {
      const work = await folder('echo-check');
      const check = await runInProcess(
        ['check', '--endpoint', gateway.url, '--json', '--to', '4741234567'],
        { cwd: work, env: CREDENTIALS },
      );
      expect(check.code).toBe(0);
      expect(check.stdout).toContain('***');
      await expectNoSecret(PASSWORD, [check], work);
    } finally {
      await gateway.stop();
    }
  });
});

/** An address of this machine that is not loopback, if it has one. */
function lanAddress(): string | undefined {
  for (const addresses of Object.values(networkInterfaces())) {
    for (const a of addresses ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  }
  return undefined;
}

describe('credentials over plain http to a host that is not loopback', () => {
  it('are refused before any connection (exit 2), naming https and --allow-insecure', async () => {
    const work = await folder('insecure');
    await writeCampaignCsv(join(work, 'campaign.csv'), 2);
    const endpoint = 'http://example.invalid';
    const [send, check, json] = await Promise.all([
      runInProcess(['campaign.csv', '--endpoint', endpoint], { cwd: work, env: CREDENTIALS }),
      runInProcess(['check', '--endpoint', endpoint], { cwd: work, env: CREDENTIALS }),
      runInProcess(['check', '--endpoint', endpoint, '--json'], { cwd: work, env: CREDENTIALS }),
    ]);
    for (const result of [send, check]) {
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).toContain('https');
      expect(result.stderr).toContain('--allow-insecure');
      // Refused by rule, not by a failed lookup.
      expect(result.stderr).not.toMatch(/ENOTFOUND|EAI_AGAIN/);
    }
    expect(json.code).toBe(2);
    expect(oneDocument(json)).toEqual({
      error: { code: 'insecure-endpoint', message: including('https'), exitCode: 2 },
    });
    // Nothing was sent, so there is no report, journal, lock or spool.
    expect(await readdir(work)).toEqual(['campaign.csv']);
  });

  it('a reachable non-loopback http gateway gets no connection without --allow-insecure, and one with it', async () => {
    const lan = lanAddress();
    if (lan === undefined) return; // No such interface here: the test above covers the refusal.
    const sim = await simulator({}, 1, '0.0.0.0');
    const endpoint = `http://${lan}:${sim.port}`;
    const work = await folder('insecure-lan');
    const refused = await runInProcess(['check', '--endpoint', endpoint], {
      cwd: work,
      env: CREDENTIALS,
    });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--allow-insecure');
    expect(sim.requests).toHaveLength(0);

    const allowed = await runInProcess(['check', '--endpoint', endpoint, '--allow-insecure'], {
      cwd: work,
      env: CREDENTIALS,
    });
    expect(allowed.code).toBe(0);
    expect(sim.requests).toHaveLength(1);
  });

  it('a host name that merely starts with "127." is not loopback', async () => {
    const work = await folder('fake-loopback');
    const result = await runInProcess(
      ['check', '--endpoint', 'http://127.0.0.1.example.invalid', '--json', '--timeout', '5s'],
      { cwd: work, env: CREDENTIALS },
    );
    expect(result.code).toBe(2);
    expect(oneDocument(result)).toEqual({
      error: containing({ code: 'insecure-endpoint', exitCode: 2 }),
    });
  });
});
