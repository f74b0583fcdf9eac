// Every stop of a run whose state is in PostgreSQL ends true, against a real server: what the
// database refuses (credentials, a missing password, database or grant) is exit 2 with what to do;
// a database that does not answer is exit 6, before sending ("nothing was sent", the same line
// again) and mid-send (the counts the stop knows, and the --resume that finishes), in the
// database's words, never the disk's; and the line it prints, run as printed, sends nothing twice.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findDuplicates, startSimulator, type Simulator } from '../../src/simulator/index.js';
import { parseCsv, tempDir, writeCampaignCsv } from '../helpers/files.js';
import { runInProcess } from '../helpers/in-process.js';
import { usePostgres } from '../helpers/postgres.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';
import { waitFor } from '../helpers/reliability.js';

const RECORDS = 2_000;

const server = usePostgres(async (started) => {
  await started.query(started.url, "CREATE ROLE sender LOGIN PASSWORD 'db-secret-7'");
});

let dir: Awaited<ReturnType<typeof tempDir>>;
let sim: Simulator;
let proxy: TcpProxy | undefined;
beforeEach(async () => {
  dir = await tempDir();
  await writeCampaignCsv(join(dir.path, 'campaign.csv'), RECORDS);
  sim = await startSimulator({ seed: 9, faults: { latencyMs: 5 } });
});
afterEach(async () => {
  await proxy?.close();
  proxy = undefined;
  await sim.stop();
  await dir.remove();
});

/** `sms-send campaign.csv --state-url URL …`, in-process, on one host. */
function send(stateUrl: string, extra: string[] = [], env: Record<string, string> = {}) {
  return runInProcess(
    [
      'campaign.csv',
      ...['--endpoint', sim.url, '--state-url', stateUrl, '--batch-size', '10'],
      ...['--outage-grace', '0', '--lease', '2s', '--yes'],
      ...extra,
    ],
    {
      cwd: dir.path,
      env: {
        SMS_SEND_STATE_DIR: join(dir.path, 'state'),
        SMS_SEND_USERNAME: 'u',
        SMS_SEND_PASSWORD: 'p',
        ...env,
      },
    },
  );
}

/** A database of its own that the user `sender` owns, and its URL as `sender`. */
async function ownDatabase(password = 'db-secret-7'): Promise<string> {
  const url = await server.database();
  const name = new URL(url).pathname.slice(1);
  await server.query(server.url, `ALTER DATABASE ${name} OWNER TO sender`);
  return url.replace('postgres@', `sender:${password}@`);
}

/**
 * The command a stop printed after `say … with:`, as argv: its words unquoted (a masked URL is
 * quoted), and the password it masked typed in again, as its note says.
 */
function printed(stderr: string, say: RegExp): string[] {
  const line = new RegExp(`${say.source} with:\\n {2}(?:npx )?sms-send (.+)\\n`).exec(stderr);
  expect(line, stderr).not.toBeNull();
  expect(stderr).toMatch(/a password in a URL is shown as \*\*\*: type it in again/);
  return line![1]!
    .split(' ')
    .map((word) => word.replace(/^'(.*)'$/, '$1').replace('***@', 'sender:db-secret-7@'));
}

/** A printed command run as the user would: in the same folder, with the same environment. */
function runPrinted(argv: string[]) {
  return runInProcess(argv, {
    cwd: dir.path,
    env: {
      SMS_SEND_STATE_DIR: join(dir.path, 'state'),
      SMS_SEND_USERNAME: 'u',
      SMS_SEND_PASSWORD: 'p',
    },
  });
}

describe('before anything is sent, a database that refuses is exit 2 with what to do', () => {
  it('a wrong password: refused, said so, the password never printed', async () => {
    const url = await ownDatabase('not-the-password');
    const run = await send(url);
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toMatch(/refused the credentials \(password authentication failed/);
    expect(run.stderr).toMatch(/nothing was sent\. Check the user and password/);
    expect(run.stdout + run.stderr).not.toContain('not-the-password');
    expect(sim.ledger).toHaveLength(0);
  });

  it("a URL without a password, and no PGPASSWORD: what to give, not the driver's words", async () => {
    const url = (await ownDatabase()).replace(':db-secret-7@', '@');
    const run = await send(url);
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toMatch(/No password was given: put it in the URL/);
    expect(run.stderr).not.toMatch(/SASL|must be a string/);
    // The same URL with PGPASSWORD sends.
    const given = await send(url, [], { PGPASSWORD: 'db-secret-7' });
    expect(given.code, given.stderr).toBe(0);
    expect(sim.ledger).toHaveLength(RECORDS);
  });

  it('a database that does not exist', async () => {
    const url = (await ownDatabase()).replace(/\/[^/]+$/, '/nosuchdb');
    const run = await send(url);
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toMatch(/does not exist .*nothing was sent\. Create it \(CREATE DATABASE/);
  });

  it('a user who may not create the schema: the grant named, and once given, the run sends', async () => {
    const url = await server.database();
    const name = new URL(url).pathname.slice(1);
    const asSender = url.replace('postgres@', 'sender:db-secret-7@');
    await server.query(url, 'REVOKE CREATE ON SCHEMA public FROM PUBLIC');
    const run = await send(asSender);
    expect(run.code, run.stderr).toBe(2);
    const grant = `GRANT CREATE ON DATABASE ${name} TO sender`;
    expect(run.stderr).toContain(grant);
    await server.query(url, grant);
    expect((await send(asSender)).code).toBe(0);
  });

  it("a schema another user made: that user's grants named, and once given, the run sends", async () => {
    const url = await server.database();
    const asSender = url.replace('postgres@', 'sender:db-secret-7@');
    // Made by the superuser's run.
    expect((await send(url, ['--limit', '1', '--report', 'made.csv'])).code).toBe(0);
    const run = await send(asSender, ['--campaign', 'other']);
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toMatch(/The schema sms_send belongs to postgres/);
    const grants = /grant its use: (.+)\.\n/.exec(run.stderr)![1]!;
    for (const grant of grants.split('; ')) await server.query(url, grant);
    const granted = await send(asSender, ['--campaign', 'other']);
    expect(granted.code, granted.stderr).toBe(0);
  });
});

describe('a database that does not answer is exit 6, in its words', () => {
  it('before sending: nothing was sent, and the line it prints (its URL masked) sends once it answers', async () => {
    const url = await ownDatabase();
    proxy = await startTcpProxy(server.port);
    proxy.cut();
    const viaProxy = url.replace(`:${server.port}/`, `:${proxy.port}/`);
    const run = await send(viaProxy);
    expect(run.code, run.stderr).toBe(6);
    expect(run.stderr).toMatch(/the campaign state database postgres:\/\/\*\*\*@.* did not answer/);
    expect(run.stderr).toMatch(/nothing was sent/);
    expect(run.stderr).not.toMatch(/room|disk/);
    expect(run.stdout + run.stderr).not.toContain('db-secret-7');
    const again = printed(run.stderr, /Once it answers, run it again/);
    expect(again).toContain('--state-url');
    proxy.restore();
    const sent = await runPrinted(again);
    expect(sent.code, sent.stderr).toBe(0);
    expect(sim.ledger).toHaveLength(RECORDS);
  });

  it('at the first journal line (a transient failure): nothing was sent, and the same line sends', async () => {
    const url = await ownDatabase();
    // The schema, made by a first run that sends one record under a name of its own.
    const warmUp = ['--campaign', 'warm-up', '--limit', '1', '--report', 'warm-up.csv'];
    expect((await send(url, warmUp)).code).toBe(0);
    await server.query(
      url,
      // A sequence, since the failing statement's own writes are rolled back with it.
      `CREATE SEQUENCE public.failures;
       CREATE FUNCTION public.fail_once() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN
         IF nextval('public.failures') = 1 THEN
           RAISE EXCEPTION 'the server is shutting down' USING ERRCODE = '57P01';
         END IF;
         RETURN NEW;
       END $$;
       CREATE TRIGGER fail_once BEFORE INSERT ON sms_send.journal
         FOR EACH STATEMENT EXECUTE FUNCTION public.fail_once();`,
    );
    const before = sim.ledger.length;
    const run = await send(url);
    expect(run.code, run.stderr).toBe(6);
    expect(run.stderr).toMatch(/did not answer .*nothing was sent/s);
    expect(sim.ledger.length).toBe(before);
    const again = await send(url);
    expect(again.code, again.stderr).toBe(0);
    expect(sim.ledger.length - before).toBe(RECORDS);
    expect(findDuplicates(sim.ledger)).toEqual([]);
  });

  it('mid-send and still down at the end: the counts the stop knows, and the --resume that finishes', async () => {
    const url = await ownDatabase();
    proxy = await startTcpProxy(server.port);
    const viaProxy = url.replace(`:${server.port}/`, `:${proxy.port}/`);
    const running = send(viaProxy);
    await waitFor(() => sim.ledger.length >= RECORDS / 4, 'a quarter sent');
    proxy.cut();
    const run = await running;
    expect(run.code, run.stderr).toBe(6);
    expect(run.stderr).toMatch(/the campaign state database postgres:\/\/\*\*\*@\S+ did not/);
    expect(run.stderr).toMatch(/this run counted [\d,]+ accepted/);
    expect(run.stderr).not.toMatch(/room/);
    const finish = printed(
      run.stderr,
      /Once the campaign state database answers, finish the campaign/,
    );
    expect(finish).toContain('--resume');
    proxy.restore();
    let resumed = await runPrinted(finish);
    // The stopped run's lease runs out first.
    for (let tries = 0; resumed.code === 4 && tries < 20; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      resumed = await runPrinted(finish);
    }
    expect([0, 1], resumed.stderr).toContain(resumed.code);
    expect(findDuplicates(sim.ledger)).toEqual([]);
    const rows = parseCsv(await readFile(join(dir.path, 'campaign.report.csv'), 'utf8'));
    expect(new Set(rows.map((row) => row['row'])).size).toBe(RECORDS);
    const ledger = new Set(sim.ledger.map((entry) => entry.messageId));
    for (const row of rows) {
      expect(['accepted', 'unknown']).toContain(row['outcome']);
      if (row['outcome'] === 'accepted') expect(ledger.has(row['messageId']!)).toBe(true);
    }
  });
});
