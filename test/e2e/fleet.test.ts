// Never twice across machines, in the spirit of Jepsen: several "hosts" (processes of the built
// binary, each with its own state directory and report) share one PostgreSQL and one simulator.
// Two start at once; the sender is killed at random instants, loses its database connection, is
// paused past its lease, or sees the database restart; another host with --once finishes. Every
// trial is checked against the simulator's ledger, not against sms-send's own state.
// Each trial sends 20,000 records, so a journal runs past the page it is read back in; a kill at a
// random instant is also tried at batch size 1 (three journal lines a record, several pages).
// SMS_SEND_FLEET_TRIALS sets the trials per case (docs/fleet.md pastes a run of 20).
import type { ChildProcess } from 'node:child_process';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { JOURNAL_PAGE } from '../../src/journal/postgres/sql/journal-page.js';
import { findDuplicates, startSimulator, type Simulator } from '../../src/simulator/index.js';
import { collect, killLeft, startCli, type CliResult } from '../helpers/cli.js';
import { parseCsv, tempDir, writeCampaignCsv } from '../helpers/files.js';
import { usePostgres } from '../helpers/postgres.js';
import { waitFor } from '../helpers/reliability.js';
import { startTcpProxy } from '../helpers/tcp-proxy.js';

const TRIALS = Number(process.env['SMS_SEND_FLEET_TRIALS'] ?? 1);
/** A trial's campaign: its records, and the records of each batch. */
interface Scale {
  records: number;
  batch: number;
}
const LARGE: Scale = { records: 20_000, batch: 10 };
const ONE_A_BATCH: Scale = { records: 2_500, batch: 1 };
let scale = LARGE;
const CONCURRENCY = 2;
/** The most records a run can have in flight when it dies: they may end `unknown`. */
const inFlight = () => scale.batch * CONCURRENCY;
const LEASE = '2s';

const server = usePostgres();

let dir: Awaited<ReturnType<typeof tempDir>>;
let sim: Simulator;
let input: string;
const children: ChildProcess[] = [];
beforeEach(async () => {
  dir = await tempDir();
  input = join(dir.path, 'campaign.csv');
  await useScale(LARGE);
  await freshSimulator();
});

/** The trials that follow send a campaign of this size. */
async function useScale(next: Scale): Promise<void> {
  scale = next;
  await writeCampaignCsv(input, scale.records);
}

/**
 * A simulator of the trial's own: a campaign of thousands of records gives time enough to hit a
 * send mid-way, with answers as quick as loopback gives them.
 */
async function freshSimulator(latencyMs = 0): Promise<void> {
  await sim?.stop();
  sim = await startSimulator({ seed: 11, faults: { latencyMs } });
}
afterEach(async () => {
  killLeft(children);
  await sim.stop();
  sim = undefined as unknown as Simulator;
  await dir.remove();
});

/** A seeded sequence of numbers in [0, 1): each run of the file hits the same instants. */
function random(seed: number): () => number {
  let s = seed;
  return () => (s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
}

/** `sms-send campaign.csv` on host `host`, against the shared simulator, its requests tagged. */
async function host(name: string, stateUrl: string, extra: string[] = []): Promise<ChildProcess> {
  const home = join(dir.path, name);
  await mkdir(home, { recursive: true });
  const child = startCli(
    [
      input,
      '--endpoint',
      `${sim.url}?host=${name}`,
      '--report',
      join(home, 'report.csv'),
      '--batch-size',
      String(scale.batch),
      '--concurrency',
      String(CONCURRENCY),
      '--outage-grace',
      '0',
      '--lease',
      LEASE,
      '--yes',
      ...extra,
    ],
    {
      cwd: home,
      // A host name of its own, as a pod has.
      host: name,
      env: {
        SMS_SEND_STATE_DIR: join(home, 'state'),
        SMS_SEND_STATE_URL: stateUrl,
        SMS_SEND_USERNAME: 'u',
        SMS_SEND_PASSWORD: 'p',
      },
    },
  );
  children.push(child);
  return child;
}

/** Runs `--once` on host `name` until it is not refused for a live lease (exit 4). */
async function finishOn(name: string, stateUrl: string): Promise<CliResult> {
  for (let attempt = 1; ; attempt++) {
    const result = await collect(await host(name, stateUrl, ['--once']));
    if (result.code !== 4 || attempt === 20) return result;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/** Requests host `name` sent, by the simulator's count. */
const requestsOf = (name: string) =>
  sim.requests.filter((r) => r.path.endsWith(`?host=${name}`)).length;

/**
 * The promise, checked against the ledger: no MessageId accepted twice, and the final report has
 * every record once, each accepted one in the ledger, each in the ledger accepted or unknown, and
 * no more unknown than one run can have in flight.
 */
async function checkFinished(finisher: string, finished: CliResult): Promise<void> {
  expect(findDuplicates(sim.ledger)).toEqual([]);
  expect([0, 1], finished.stderr).toContain(finished.code);
  const rows = parseCsv(await readFile(join(dir.path, finisher, 'report.csv'), 'utf8'));
  expect(new Set(rows.map((row) => row['row'])).size).toBe(scale.records);
  const ledger = new Set(sim.ledger.map((entry) => entry.messageId));
  for (const row of rows) {
    if (row['outcome'] === 'accepted') expect(ledger.has(row['messageId']!)).toBe(true);
    if (ledger.has(row['messageId']!)) expect(['accepted', 'unknown']).toContain(row['outcome']);
  }
  expect(rows.filter((row) => row['outcome'] === 'unknown').length).toBeLessThanOrEqual(inFlight());
}

const atLeast = (n: number) => () => (sim.ledger.length >= n ? true : undefined);

/**
 * 300 records sent from host a, killed a third of the way; host b finishes them with --once (no
 * record twice, checked against the ledger). The state URL they share.
 */
async function killedOnAFinishedOnB(): Promise<string> {
  await useScale({ records: 300, batch: 10 });
  await freshSimulator(40);
  const stateUrl = await server.database();
  const sender = await host('a', stateUrl);
  await waitFor(atLeast(scale.records / 3), 'a third sent');
  sender.kill('SIGKILL');
  await collect(sender);
  await checkFinished('b', await finishOn('b', stateUrl));
  return stateUrl;
}

describe('a fleet of hosts sharing one PostgreSQL', () => {
  it(`two hosts start the same campaign at the same instant: one sends (${TRIALS} trials)`, async () => {
    for (let trial = 0; trial < TRIALS; trial++) {
      await freshSimulator();
      const stateUrl = await server.database();
      const [a, b] = await Promise.all([host(`a${trial}`, stateUrl), host(`b${trial}`, stateUrl)]);
      const results = await Promise.all([collect(a), collect(b)]);
      const codes = results.map((r) => r.code).sort();
      expect(codes[0], results.map((r) => r.stderr).join('\n')).toBe(0);
      expect([2, 4]).toContain(codes[1]);
      expect(findDuplicates(sim.ledger)).toEqual([]);
      expect(sim.ledger).toHaveLength(scale.records);
    }
  }, 120_000);

  it.each([
    ['', LARGE],
    [', one record a batch', ONE_A_BATCH],
  ])(
    `the sender killed at a random instant%s; another host with --once finishes (${TRIALS} trials)`,
    async (_name, size) => {
      await useScale(size);
      const next = random(20261128);
      for (let trial = 0; trial < TRIALS; trial++) {
        await freshSimulator();
        const stateUrl = await server.database();
        const sender = await host(`a${trial}`, stateUrl);
        // Past a page of journal, so the host that finishes reads it back in pieces.
        const pastPage = Math.ceil(JOURNAL_PAGE / 3) * scale.batch;
        const killAt = pastPage + Math.floor(next() * (scale.records - inFlight() - pastPage));
        await waitFor(atLeast(killAt), `${killAt} messages sent`);
        sender.kill('SIGKILL');
        await collect(sender);
        await checkFinished(`b${trial}`, await finishOn(`b${trial}`, stateUrl));
      }
    },
    240_000,
  );

  it('a campaign killed on host a and finished on host b: its page on host c tells both runs, each with its host', async () => {
    const stateUrl = await killedOnAFinishedOnB();
    const home = join(dir.path, 'c');
    await mkdir(home, { recursive: true });
    const page = join(home, 'page.html');
    const onC = (args: string[]) =>
      collect(
        startCli(args, {
          cwd: home,
          host: 'c',
          env: { SMS_SEND_STATE_URL: stateUrl, SMS_SEND_STATE_DIR: join(home, 'state') },
        }),
      );
    const listed = await onC(['campaigns', '--json']);
    const [campaign] = (JSON.parse(listed.stdout) as { campaigns: { id: string }[] }).campaigns;
    const drawn = await onC(['report', campaign!.id, '--html', page]);
    expect(drawn.code, drawn.stderr).toBe(0);
    const html = await readFile(page, 'utf8');
    const table = /<th scope="col">host<\/th>[\s\S]*?<\/table>/.exec(html)?.[0] ?? '';
    const hosts = [
      ...table.matchAll(/<td class="n"><span data-n="\d+">\d+<\/span><\/td>\s*<td>([^<]*)<\/td>/g),
    ].map((m) => m[1]);
    expect(hosts).toEqual(['a', 'b']);

    // The campaign's report written out on host c, from the database: b's report, byte for byte.
    const output = join(home, 'campaign.report.csv');
    const written = await onC(['report', campaign!.id, '--output', output]);
    expect(written.code, written.stderr).toBe(0);
    expect(written.stderr).toContain(`on host b, as its run ended at`);
    const finished = await readFile(join(dir.path, 'b', 'report.csv'));
    expect((await readFile(output)).equals(finished)).toBe(true);
    expect(written.stdout).toContain(`${scale.records.toLocaleString('en-US')} rows`);
  });

  it('the killed host, run again with --once after another host finished: names the report that exists, its own partial', async () => {
    const stateUrl = await killedOnAFinishedOnB();
    const again = await collect(await host('a', stateUrl, ['--once']));
    const finished = join(dir.path, 'b', 'report.csv');
    expect(again.stdout).toContain(`report    ${finished} (on host b, whose run finished it)`);
    expect(again.stdout).toContain(
      `this host's ${join(dir.path, 'a', 'report.csv')} is not the campaign's report`,
    );
    const json = await collect(await host('a', stateUrl, ['--once', '--json']));
    const { summary } = JSON.parse(json.stdout) as {
      summary: { byOutcome: Record<string, number>; total: number };
    };
    // It ends as the run that finished the campaign did: 1 when the kill left records unknown.
    const exitCode = summary.byOutcome['accepted'] === summary.total ? 0 : 1;
    expect(again.code, again.stderr).toBe(exitCode);
    expect(again.stdout).toMatch(exitCode === 0 ? /^✔ / : /^! /m);
    expect(JSON.parse(json.stdout)).toMatchObject({
      summary: {
        report: finished,
        reportHost: 'b',
        staleReport: join(dir.path, 'a', 'report.csv'),
        exitCode,
      },
    });
  }, 120_000);

  it('campaigns and campaigns show agree on a live, a killed and a finished run; a run gone from its host is said to be', async () => {
    // Slow answers: the run is still sending while the test looks.
    await useScale({ records: 300, batch: 10 });
    await freshSimulator(500);
    const stateUrl = await server.database();
    const look = async (on: string, ...args: string[]) => {
      const result = await collect(
        startCli(['campaigns', ...args, '--json'], {
          cwd: dir.path,
          host: on,
          env: { SMS_SEND_STATE_URL: stateUrl, SMS_SEND_STATE_DIR: join(dir.path, on, 'state') },
        }),
      );
      expect(result.code, result.stderr).toBe(0);
      return JSON.parse(result.stdout) as Record<string, unknown>;
    };
    type Listed = { id: string; status: string; counts: Record<string, number> | null };
    const listed = async (on: string) => ((await look(on)) as { campaigns: Listed[] }).campaigns;
    // A lease long enough for the two looks on host a after the kill, however loaded the machine:
    // the last --lease given is the one taken.
    const sender = await host('a', stateUrl, ['--lease', '8s']);
    await waitFor(atLeast(scale.records / 4), 'a quarter sent');
    const [live] = await listed('c');
    expect(live).toMatchObject({ status: 'running', counts: null });
    const shown = (await look('c', 'show', live!.id)) as Listed;
    expect(shown.status).toBe('running');
    expect(shown.counts!['accepted']).toBeGreaterThan(0);
    sender.kill('SIGKILL');
    await collect(sender);
    // On the host it ran on, the killed run is known to be gone; elsewhere it is not.
    expect(await listed('a')).toMatchObject([{ status: 'interrupted', counts: null }]);
    const gone = (await look('a', 'show', live!.id)) as Listed & { goneUntil: string | null };
    expect(gone.status).toBe('interrupted');
    expect(gone.goneUntil).not.toBeNull();
    // Elsewhere it cannot be known: running until its lease runs out, then interrupted.
    const [elsewhere] = await listed('c');
    expect(elsewhere!.counts).toBeNull();
    expect(['running', 'interrupted']).toContain(elsewhere!.status);
    await checkFinished('b', await finishOn('b', stateUrl));
    const [done] = await listed('c');
    const doneShown = (await look('c', 'show', live!.id)) as Listed;
    expect(done!.status).toBe('finished');
    expect(done!.counts).toEqual(doneShown.counts);
  }, 120_000);

  it(`the sender's database connection cut or silenced mid-send: it posts nothing more (${TRIALS} trials)`, async () => {
    for (let trial = 0; trial < TRIALS; trial++) {
      await freshSimulator();
      const stateUrl = await server.database();
      const proxy = await startTcpProxy(server.port);
      const viaProxy = stateUrl.replace(`:${server.port}/`, `:${proxy.port}/`);
      const sender = await host(`a${trial}`, viaProxy);
      const ended = collect(sender);
      await waitFor(atLeast(scale.records / 3), 'a third sent');
      if (trial % 2 === 0) proxy.cut();
      else proxy.silence();
      const cutAt = requestsOf(`a${trial}`);
      const stopped = await ended;
      expect([4, 6], stopped.stderr).toContain(stopped.code);
      // Only what was already on its way: its record committed before the connection went.
      expect(requestsOf(`a${trial}`) - cutAt).toBeLessThanOrEqual(CONCURRENCY);
      await proxy.close();
      await checkFinished(`b${trial}`, await finishOn(`b${trial}`, stateUrl));
    }
  }, 240_000);

  it(`the sender paused past its lease; another host finishes; woken, it records nothing and exits 4 (${TRIALS} trials)`, async () => {
    for (let trial = 0; trial < TRIALS; trial++) {
      await freshSimulator();
      const stateUrl = await server.database();
      const sender = await host(`a${trial}`, stateUrl);
      const ended = collect(sender);
      await waitFor(atLeast(scale.records / 3), 'a third sent');
      sender.kill('SIGSTOP');
      const finished = await finishOn(`b${trial}`, stateUrl);
      // Counted once the other host has finished: what the paused run had written before the
      // pause has long arrived.
      const pausedAt = requestsOf(`a${trial}`);
      sender.kill('SIGCONT');
      const woken = await ended;
      expect(woken.code, woken.stderr).toBe(4);
      // Woken, it may post only batches it had recorded before the pause (docs/fleet.md): one a
      // worker at most, which the other host read as sent and never sent again.
      expect(requestsOf(`a${trial}`) - pausedAt).toBeLessThanOrEqual(CONCURRENCY);
      await checkFinished(`b${trial}`, finished);
    }
  }, 240_000);

  it(`the database restarts mid-send: the run stops or goes on, never sends twice (${TRIALS} trials)`, async () => {
    for (let trial = 0; trial < TRIALS; trial++) {
      await freshSimulator();
      const stateUrl = await server.database();
      const sender = await host(`a${trial}`, stateUrl);
      const ended = collect(sender);
      await waitFor(atLeast(scale.records / 3), 'a third sent');
      await server.restart();
      const first = await ended;
      expect([0, 1, 4, 6], first.stderr).toContain(first.code);
      if (first.code === 0 || first.code === 1) {
        expect(findDuplicates(sim.ledger)).toEqual([]);
        continue;
      }
      await checkFinished(`b${trial}`, await finishOn(`b${trial}`, stateUrl));
    }
  }, 240_000);
});
