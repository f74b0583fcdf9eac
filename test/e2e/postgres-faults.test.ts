// What only a process shows of a state database's faults: the server restarting while a run waits
// inside a transaction (making the schema, claiming the campaign) ends it in the database's words
// (exit 6), never a crash; this host's own disk failing under its cache is named as the disk's
// (exit 2), never as the database's; and a run taken over ends with exit 4 at once, without
// waiting out its grace for the state.
import { join } from 'node:path';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findDuplicates, startSimulator, type Simulator } from '../../src/simulator/index.js';
import { collect, killLeft, startCli, type CliResult } from '../helpers/cli.js';
import { ERRNO, faultEnv, type RealFault } from '../helpers/fault-shim.js';
import { tempDir, writeCampaignCsv } from '../helpers/files.js';
import { usePostgres } from '../helpers/postgres.js';
import { waitFor } from '../helpers/reliability.js';
import type { ChildProcess } from 'node:child_process';

const RECORDS = 200;

const server = usePostgres();

let dir: Awaited<ReturnType<typeof tempDir>>;
let sim: Simulator;
const children: ChildProcess[] = [];
beforeEach(async () => {
  dir = await tempDir();
  await writeCampaignCsv(join(dir.path, 'campaign.csv'), RECORDS);
  sim = await startSimulator({ seed: 4, faults: { latencyMs: 5 } });
});
afterEach(async () => {
  killLeft(children);
  await sim.stop();
  await dir.remove();
});

/** `sms-send campaign.csv` with its state at `stateUrl`, as a process of its own. */
function start(stateUrl: string, extra: string[] = [], env: Record<string, string> = {}) {
  const child = startCli(
    [
      'campaign.csv',
      ...['--endpoint', sim.url, '--batch-size', '10', '--lease', '2s', '--yes'],
      ...extra,
    ],
    {
      cwd: dir.path,
      env: {
        SMS_SEND_STATE_DIR: join(dir.path, 'state'),
        SMS_SEND_STATE_URL: stateUrl,
        SMS_SEND_USERNAME: 'u',
        SMS_SEND_PASSWORD: 'p',
        ...env,
      },
    },
  );
  children.push(child);
  return child;
}

/** A session of the test's own that holds a lock the run will wait on. */
async function holding(url: string, statements: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url });
  // The restart cuts this session too.
  client.on('error', () => undefined);
  await client.connect();
  await client.query(statements);
  return client;
}

/** Waits until a session of sms-send waits for a lock. */
function waitingForLock(url: string): Promise<true> {
  return waitFor(async () => {
    const rows = await server.query(
      url,
      "SELECT 1 FROM pg_stat_activity WHERE application_name = 'sms-send' AND wait_event_type = 'Lock'",
    );
    return rows.length > 0;
  }, 'sms-send to wait for the lock');
}

/** The run ended in the database's words, with a message and an exit code of its own. */
function endedInTheDatabasesWords(run: CliResult): void {
  expect(run.stderr).not.toMatch(/Unhandled|unexpected error|at .*node_modules/);
  expect(run.code, run.stderr).toBe(6);
  expect(run.stderr).toMatch(/the campaign state database postgres:\/\/\S+ did not answer/);
  expect(run.stderr).toMatch(/nothing was sent/);
}

describe('the database restarts while a run waits inside a transaction', () => {
  it('making the schema: exit 6 in its words, no crash; the same line then sends', async () => {
    const url = await server.database();
    // sms-send's lock for making the schema (src/journal/postgres/schema.ts).
    const lock = await holding(url, 'SELECT pg_advisory_lock(7283410552)');
    const ended = collect(start(url));
    await waitingForLock(url);
    await server.restart();
    endedInTheDatabasesWords(await ended);
    await lock.end().catch(() => undefined);
    const again = await collect(start(url));
    expect(again.code, again.stderr).toBe(0);
    expect(sim.ledger).toHaveLength(RECORDS);
  });

  it('claiming the campaign: exit 6 in its words, no crash; the same line then sends', async () => {
    const url = await server.database();
    const warmUp = await collect(start(url, ['--campaign', 'warm-up', '--limit', '1']));
    expect(warmUp.code, warmUp.stderr).toBe(0);
    // A claim of the campaign `blocked` waits for this uncommitted one.
    const lock = await holding(
      url,
      "BEGIN; INSERT INTO sms_send.campaigns (id) VALUES ('blocked')",
    );
    const ended = collect(start(url, ['--campaign', 'blocked', '--report', 'blocked.csv']));
    await waitingForLock(url);
    await server.restart();
    endedInTheDatabasesWords(await ended);
    await lock.end().catch(() => undefined);
    const again = await collect(start(url, ['--campaign', 'blocked', '--report', 'blocked.csv']));
    expect(again.code, again.stderr).toBe(0);
    expect(sim.ledger).toHaveLength(1 + RECORDS);
    expect(findDuplicates(sim.ledger)).toEqual([]);
  });
});

describe("this host's disk failing under its cache, with the state in PostgreSQL", () => {
  const cases: { name: string; fault: (state: string) => RealFault }[] = [
    {
      name: "EIO making the campaign's cache folder",
      fault: (state) => ({ path: join(state, 'cache'), ops: ['mkdir'], errno: ERRNO.EIO }),
    },
    {
      name: 'ENOSPC writing the spool',
      fault: (state) => ({ path: join(state, 'cache'), ops: ['write'], errno: ERRNO.ENOSPC }),
    },
  ];
  it.each(cases)(
    "$name: exit 2 in the disk's words, nothing sent; then the same line sends",
    async ({ fault }) => {
      const url = await server.database();
      const state = join(dir.path, 'state');
      const run = await collect(start(url, [], faultEnv(fault(state))));
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr).toMatch(/\((EIO|ENOSPC)\)/);
      expect(run.stderr).toMatch(/nothing was sent/i);
      expect(run.stderr).not.toMatch(/database/);
      expect(sim.ledger).toHaveLength(0);
      const again = await collect(start(url));
      expect(again.code, again.stderr).toBe(0);
      expect(sim.ledger).toHaveLength(RECORDS);
    },
  );
});

describe('a run taken over', () => {
  it('paused past its lease, woken after another host finished: exit 4 at once, whatever its grace', async () => {
    const url = await server.database();
    await sim.stop();
    sim = await startSimulator({ seed: 4, faults: { latencyMs: 30 } });
    // A grace longer than the test's own timeout: a run that waited it out would fail the test.
    const paused = start(url, ['--outage-grace', '1h', '--report', 'a.csv']);
    const ended = collect(paused);
    await waitFor(() => sim.ledger.length >= RECORDS / 4, 'a quarter sent');
    paused.kill('SIGSTOP');
    let other: CliResult;
    do {
      await new Promise((resolve) => setTimeout(resolve, 300));
      // Another host: a state directory of its own.
      other = await collect(
        start(url, ['--once', '--report', 'b.csv'], { SMS_SEND_STATE_DIR: join(dir.path, 'b') }),
      );
    } while (other.code === 4);
    expect([0, 1], other.stderr).toContain(other.code);
    const before = sim.ledger.length;
    paused.kill('SIGCONT');
    const woken = await ended;
    expect(woken.code, woken.stderr).toBe(4);
    expect(woken.stderr).toMatch(/another run took campaign \S+ over/);
    // The stop blames neither the disk nor the database. A warning may come before it: a query
    // the pause left waiting timed out as the process woke, and the run's timeline says so.
    const stop = woken.stderr.split('\n').filter((line) => line.startsWith('sms-send:'));
    expect(stop).toHaveLength(1);
    expect(stop[0]).not.toMatch(/room|database .* did not/);
    // Woken, it may post only what it had recorded before the pause (docs/fleet.md): a batch of
    // 10 for each of its 4 workers at most.
    expect(sim.ledger.length - before).toBeLessThanOrEqual(4 * 10);
    expect(findDuplicates(sim.ledger)).toEqual([]);
  }, 60_000);
});
