// Where users are: behind a company's proxy (HTTPS_PROXY, HTTP_PROXY, NO_PROXY, --proxy), with a
// private CA (--ca-file), on IPv6. Real proxies and TLS servers on loopback, made by the tests.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { check, send, startSimulator, type Simulator } from '../../src/index.js';
import { findDuplicates } from '../../src/simulator/index.js';
import { SmsSendError } from '../../src/shared/errors.js';
import { makeCa } from '../helpers/certificates.js';
import { parseCsv, tempDir, writeCampaignCsv } from '../helpers/files.js';
import { startProxy, type TestProxy } from '../helpers/proxy.js';
import { readFile } from 'node:fs/promises';

const CREDENTIALS = { username: 'net-user', password: 'net-secret' };
let dir: { path: string; remove: () => Promise<void> };
let input: string;
let caFile: string;
let plain: Simulator;
let secure: Simulator;
const stopLater: (() => Promise<void>)[] = [];
let runs = 0;

beforeAll(async () => {
  dir = await tempDir();
  input = join(dir.path, 'net.csv');
  await writeCampaignCsv(input, 60);
  const ca = makeCa();
  caFile = join(dir.path, 'ca.pem');
  await writeFile(caFile, ca.cert);
  plain = await startSimulator({ credentials: CREDENTIALS });
  // A gateway whose certificate a private CA signed: only a named CA makes it trusted.
  secure = await startSimulator({
    credentials: CREDENTIALS,
    tls: ca.sign(['localhost', '127.0.0.1', '::1']),
  });
});

afterEach(async () => {
  for (const stop of stopLater.splice(0)) await stop();
});

afterAll(async () => {
  await plain.stop();
  await secure.stop();
  await dir.remove();
});

async function proxy(options?: { user?: string; password?: string }): Promise<TestProxy> {
  const started = await startProxy(options);
  stopLater.push(() => started.stop());
  return started;
}

/** A send of the campaign in-process, with `env` for the environment it reads, never the test's. */
async function sendWith(endpoint: string, env: Record<string, string>, settings: object = {}) {
  const name = `run-${++runs}`;
  const report = join(dir.path, `${name}.csv`);
  const result = await send({
    inputs: [input],
    env,
    settings: {
      endpoint,
      ...CREDENTIALS,
      stateDir: join(dir.path, `state-${name}`),
      batchSize: 10,
      concurrency: 2,
      ...settings,
    },
    report,
  }).then(
    (document) => ({ document, error: undefined }),
    (error: unknown) => {
      if (!(error instanceof SmsSendError)) throw error;
      return { document: undefined, error };
    },
  );
  return { ...result, report };
}

describe('through an HTTP proxy', () => {
  it('sends to an http gateway as absolute-form requests, named in HTTP_PROXY', async () => {
    const through = await proxy();
    const before = plain.ledger.length;
    const run = await sendWith(plain.url, { HTTP_PROXY: through.url });
    expect(run.error?.message).toBeUndefined();
    expect(run.document?.summary.byOutcome.accepted).toBe(60);
    expect(plain.ledger.length - before).toBe(60);
    expect(through.log[0]).toBe(`POST ${plain.url}/json/reply/RestSmsRequest`);
    expect(through.log).toHaveLength(6);
  });

  it('sends to an https gateway through a CONNECT tunnel, named in https_proxy, trusting --ca-file', async () => {
    const through = await proxy();
    const run = await sendWith(secure.url, { https_proxy: through.url }, { caFile });
    expect(run.error?.message).toBeUndefined();
    expect(run.document?.summary.byOutcome.accepted).toBe(60);
    const host = new URL(secure.url).host;
    expect(new Set(through.log)).toEqual(new Set([`CONNECT ${host}`]));
  });

  it('goes direct to a host NO_PROXY names', async () => {
    const through = await proxy();
    const run = await sendWith(plain.url, {
      HTTP_PROXY: through.url,
      NO_PROXY: 'localhost,127.0.0.1',
    });
    expect(run.document?.summary.byOutcome.accepted).toBe(60);
    expect(through.log).toEqual([]);
  });

  it('check says which proxy it went through, its password masked', async () => {
    const through = await proxy({ user: 'corp', password: 'proxy-secret' });
    const checked = await check({
      env: { HTTPS_PROXY: through.url },
      settings: { endpoint: secure.url, ...CREDENTIALS, caFile },
    });
    expect(checked.check).toMatchObject({
      ok: true,
      proxy: `http://***@${new URL(through.url).host} (HTTPS_PROXY)`,
    });
    expect(JSON.stringify(checked)).not.toContain('proxy-secret');
    expect(through.log).toEqual([`CONNECT ${new URL(secure.url).host}`]);
  });

  it('a proxy that refuses the credentials in its URL says so, naming where they were given', async () => {
    const through = await proxy({ user: 'corp', password: 'proxy-secret' });
    const wrong = through.url.replace('proxy-secret', 'not-it');
    const run = await sendWith(secure.url, { HTTPS_PROXY: wrong }, { caFile });
    expect(run.error?.exitCode).toBe(3);
    expect(run.error?.message).toMatch(
      /the proxy http:\/\/\S+@\S+ \(HTTPS_PROXY\) refused the credentials in its URL \(HTTP 407 Proxy Authentication Required\): check the user name and password given in HTTPS_PROXY/,
    );
    expect(run.error?.message).not.toContain('not-it');
  });

  it('an http gateway reached through HTTP_PROXY is told of HTTP_PROXY, not HTTPS_PROXY', async () => {
    const through = await proxy({ user: 'corp', password: 'proxy-secret' });
    const bare = through.url.replace(/\/\/[^@]*@/, '//');
    const run = await sendWith(plain.url, { HTTP_PROXY: bare });
    expect(run.error?.exitCode).toBe(3);
    expect(run.error?.message).toContain('http://user:password@host:port, in HTTP_PROXY');
    expect(run.error?.message).not.toContain('HTTPS_PROXY');
  });

  it('a proxy that wants credentials stops the run at once, saying so and how to give them', async () => {
    const through = await proxy({ user: 'corp', password: 'proxy-secret' });
    const bare = through.url.replace(/\/\/[^@]*@/, '//');
    const run = await sendWith(secure.url, {}, { caFile, proxy: bare });
    expect(run.error?.exitCode).toBe(3);
    expect(run.error?.message).toContain(
      `the proxy ${bare} (--proxy) wants credentials (HTTP 407 Proxy Authentication Required): ` +
        'give them in its URL, http://user:password@host:port, in --proxy',
    );
    // Refused at the tunnel: only the batches already under way asked, none got through.
    expect(new Set(through.log)).toEqual(new Set([`CONNECT ${new URL(secure.url).host}`]));
    expect(run.error?.document).toMatchObject({ summary: { byOutcome: { accepted: 0 } } });
    // With them in its URL, the same campaign goes through.
    const again = await sendWith(secure.url, {}, { caFile, proxy: through.url });
    expect(again.document?.summary.byOutcome.accepted).toBe(60);
  });

  it('a proxy that cannot reach the gateway (502 to CONNECT) is an outage of the proxy, nothing sent', async () => {
    const through = await proxy();
    through.refuseWith = 502;
    const before = secure.ledger.length;
    const run = await sendWith(
      secure.url,
      { HTTPS_PROXY: through.url },
      { caFile, retries: 1, outageGrace: 0 },
    );
    expect(run.error?.exitCode).toBe(3);
    expect(run.error?.message).toContain(
      `the proxy ${through.url} (HTTPS_PROXY) could not reach the gateway (HTTP 502)`,
    );
    expect(secure.ledger.length).toBe(before);
    const rows = parseCsv(await readFile(run.report, 'utf8'));
    expect(new Set(rows.map((r) => r.outcome))).toEqual(new Set(['failed']));
  });

  it('a proxy that dies mid-campaign and comes back: nothing sent twice, every record reported once', async () => {
    const through = await proxy();
    const sim = await startSimulator({ credentials: CREDENTIALS, faults: { latencyMs: 20 } });
    stopLater.push(() => sim.stop());
    const big = join(dir.path, 'big.csv');
    await writeCampaignCsv(big, 400);
    const sending = send({
      inputs: [big],
      env: { HTTP_PROXY: through.url },
      settings: {
        endpoint: sim.url,
        ...CREDENTIALS,
        stateDir: join(dir.path, 'state-dies'),
        batchSize: 20,
        concurrency: 4,
        outageGrace: '20s',
      },
      report: join(dir.path, 'dies.csv'),
    }).catch((error: unknown) => error);
    while (sim.ledger.length < 100) await new Promise((resolve) => setTimeout(resolve, 5));
    await through.die();
    await new Promise((resolve) => setTimeout(resolve, 300));
    await through.revive();
    await sending;
    expect(findDuplicates(sim.ledger)).toEqual([]);
    const rows = parseCsv(await readFile(join(dir.path, 'dies.csv'), 'utf8'));
    expect(rows.map((r) => Number(r.row)).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 400 }, (_v, i) => i + 1),
    );
    // Every record the gateway took is reported accepted, or unknown if its answer was cut off.
    const accepted = new Set(sim.ledger.map((entry) => entry.messageId));
    for (const row of rows) {
      expect(
        accepted.has(row.messageId!) ? ['accepted', 'unknown'] : ['failed', 'unknown'],
      ).toContain(row.outcome);
    }
    expect(rows.filter((r) => r.outcome === 'accepted').length).toBeGreaterThan(100);
  });
});

describe('TLS and IPv6', () => {
  it('a gateway whose CA is not trusted: the run stops at once, naming the host and what fixes it', async () => {
    const run = await sendWith(secure.url, {}, { outageGrace: '30s' });
    expect(run.error?.exitCode).toBe(3);
    expect(run.error?.message).toContain(`(${new URL(secure.url).host})`);
    expect(run.error?.message).toContain(
      'name that CA with --ca-file (caFile, SMS_SEND_CA_FILE) or NODE_EXTRA_CA_CERTS',
    );
  });

  it('an IPv6 literal endpoint works, over http and https', async () => {
    const six = await startSimulator({ credentials: CREDENTIALS, host: '::1' });
    stopLater.push(() => six.stop());
    expect(six.url).toMatch(/^http:\/\/\[::1\]:\d+$/);
    expect((await sendWith(six.url, {})).document?.summary.byOutcome.accepted).toBe(60);
    const ipv6Tls = secure.url.replace('127.0.0.1', '[::1]');
    const sixTls = await startSimulator({
      credentials: CREDENTIALS,
      host: '::1',
      tls: makeCa().sign(['::1']),
    });
    stopLater.push(() => sixTls.stop());
    expect(ipv6Tls).toContain('[::1]');
    const checked = await check({
      env: {},
      settings: { endpoint: sixTls.url, ...CREDENTIALS },
    }).catch((error: SmsSendError) => error);
    // Its own CA, not named: refused, and the words name the host in brackets.
    expect((checked as SmsSendError).message).toContain('[::1]');
  });
});
