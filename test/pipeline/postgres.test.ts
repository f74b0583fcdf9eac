// Campaign state in PostgreSQL, as a user runs sms-send on more than one host: each "host" a state
// directory of its own, one state URL, one gateway. Checked against the simulator's ledger.
import { readdir, readFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { findDuplicates, startSimulator, type Simulator } from '../../src/simulator/index.js';
import type { CliResult } from '../helpers/cli.js';
import { parseCsv, tempDir, writeCampaignCsv } from '../helpers/files.js';
import { runInProcess } from '../helpers/in-process.js';
import { startPostgres, type Postgres } from '../helpers/postgres.js';

const RECORDS = 120;

let server: Postgres;
beforeAll(async () => {
  server = await startPostgres();
}, 60_000);
afterAll(() => server.stop());

let dir: Awaited<ReturnType<typeof tempDir>>;
let sim: Simulator;
let stateUrl: string;
beforeEach(async () => {
  dir = await tempDir();
  await writeCampaignCsv(join(dir.path, 'campaign.csv'), RECORDS);
  sim = await startSimulator({ seed: 3 });
  stateUrl = await server.database();
});
afterEach(async () => {
  await sim.stop();
  await dir.remove();
});

/** `sms-send campaign.csv` on host `host` (its own state directory and report), in-process. */
function sendFrom(host: string, extra: string[] = [], env: Record<string, string> = {}) {
  return runInProcess(
    [
      'campaign.csv',
      '--endpoint',
      sim.url,
      '--report',
      join(dir.path, `${host}.report.csv`),
      '--batch-size',
      '10',
      '--outage-grace',
      '0',
      ...extra,
    ],
    {
      cwd: dir.path,
      env: {
        SMS_SEND_STATE_DIR: join(dir.path, host),
        SMS_SEND_STATE_URL: stateUrl,
        SMS_SEND_USERNAME: 'u',
        SMS_SEND_PASSWORD: 'p',
        ...env,
      },
    },
  );
}

async function reportOf(host: string): Promise<Record<string, string>[]> {
  return parseCsv(await readFile(join(dir.path, `${host}.report.csv`), 'utf8').catch(() => ''));
}

describe('campaign state in PostgreSQL', () => {
  it('the same cron line on two hosts: the first sends every record once, the second sends nothing (exit 2)', async () => {
    const first = await sendFrom('a');
    expect(first.code, first.stderr).toBe(0);
    const second = await sendFrom('b');
    expect(second.code).toBe(2);
    expect(second.stderr).toMatch(/already sent/);
    expect(sim.ledger).toHaveLength(RECORDS);
    expect(findDuplicates(sim.ledger)).toEqual([]);
  });

  it('--once: sends, then on any host does nothing and exits 0', async () => {
    expect((await sendFrom('a', ['--once'])).code).toBe(0);
    const again = await sendFrom('b', ['--once']);
    expect(again.code, again.stderr).toBe(0);
    expect(sim.ledger).toHaveLength(RECORDS);
  });

  it('--once on another host finishes a campaign a stopped run left, sending only what is left', async () => {
    await sim.stop();
    sim = await startSimulator({ seed: 3, faults: { unavailable: 1 } });
    const stopped = await sendFrom('a', ['--retries', '0']);
    expect(stopped.code).toBe(3);
    await sim.stop();
    sim = await startSimulator({ seed: 3 });
    const finished: CliResult = await sendFrom('b', ['--once']);
    expect(finished.code, finished.stderr).toBe(0);
    expect(sim.ledger).toHaveLength(RECORDS);
    const rows = await reportOf('b');
    expect(rows).toHaveLength(RECORDS);
    expect(rows.every((row) => row['outcome'] === 'accepted')).toBe(true);
  });

  it("a dry run of a stopped campaign, refused, leaves no reading of its journal in this host's cache", async () => {
    await sim.stop();
    sim = await startSimulator({ seed: 3, faults: { unavailable: 1 } });
    expect((await sendFrom('a', ['--retries', '0'])).code).toBe(3);
    const looked = await sendFrom('b', ['--dry-run']);
    expect(looked.code, looked.stderr).toBe(2);
    expect(looked.stderr).toMatch(/was stopped/);
    const cache = join(dir.path, 'b', 'cache');
    const left = await readdir(cache, { recursive: true }).catch(() => [] as string[]);
    expect(left.filter((name) => /journal-\d+-\d+\.ndjson$/.test(name))).toEqual([]);
  });

  it('campaigns lists the campaign of another host, with the host that held it', async () => {
    expect((await sendFrom('a')).code).toBe(0);
    const listed = await runInProcess(['campaigns', '--json'], {
      cwd: dir.path,
      env: { SMS_SEND_STATE_DIR: join(dir.path, 'b'), SMS_SEND_STATE_URL: stateUrl },
    });
    expect(listed.code, listed.stderr).toBe(0);
    const document = JSON.parse(listed.stdout) as {
      state: string;
      campaigns: Array<{ status: string; records: number; host: string }>;
    };
    // The URL as output names it: who connects, masked with the password.
    expect(document.state).toBe(stateUrl.replace('postgres@', '***@'));
    expect(document.campaigns).toMatchObject([
      { status: 'finished', records: RECORDS, host: hostname() },
    ]);
  });
});
