// Campaign state in PostgreSQL, as a user runs sms-send on more than one host: each "host" a state
// directory of its own, one state URL, one gateway. Checked against the simulator's ledger.
import { readdir, readFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findDuplicates, startSimulator, type Simulator } from '../../src/simulator/index.js';
import type { CliResult } from '../helpers/cli.js';
import { parseCsv, tempDir, writeCampaignCsv } from '../helpers/files.js';
import { runInProcess } from '../helpers/in-process.js';
import { databaseStore } from '../helpers/state.js';
import { usePostgres } from '../helpers/postgres.js';

const RECORDS = 120;

const server = usePostgres();

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

describe('delivery reports the database keeps', () => {
  it('prove an unknown record was taken: --resume --retry-unknown on another host never sends it again', async () => {
    // The gateway takes some requests and then errors: their records end unknown.
    sim.setFaults({ errorAfterProcessing: 0.3 });
    const first = await sendFrom('a', ['--retries', '0']);
    expect(first.code, first.stderr).toBe(1);
    const unknown = (await reportOf('a')).filter((row) => row['outcome'] === 'unknown');
    const had = new Set(sim.ledger.map((entry) => entry.messageId));
    const taken = unknown.filter((row) => had.has(row['messageId']!));
    expect(taken.length).toBeGreaterThan(0);

    // A receiver kept a delivery report for each one the gateway had (sms-send dlr's store).
    const store = databaseStore(stateUrl, join(dir.path, 'receiver-cache'));
    const [campaign] = await store.campaigns();
    for (const row of taken) {
      const kept = await store.deliveries.add(campaign!.manifest.id, {
        messageId: row['messageId']!,
        status: 'DELIVRD',
        timestamp: '20261129120000',
        transactionId: undefined,
        receivedAt: '2026-11-29T12:00:01.000Z',
      });
      expect(kept).toBe(true);
    }
    await store.close();

    sim.setFaults({});
    const again = await sendFrom('b', [
      '--resume',
      '--retry-unknown',
      '--report',
      join(dir.path, 'b.report.csv'),
    ]);
    expect(again.code, again.stderr).toBe(0);
    // Only the unknown records the gateway never had were sent again: no message twice.
    expect(findDuplicates(sim.ledger)).toEqual([]);
    const rows = new Map((await reportOf('b')).map((row) => [row['row'], row]));
    for (const row of taken) {
      expect(rows.get(row['row'])).toMatchObject({
        outcome: 'accepted',
        deliveryStatus: 'DELIVRD',
        deliveredAt: '2026-11-29T12:00:00Z',
      });
    }
  });

  it("of a run a --force run set aside are not the campaign's now", async () => {
    expect((await sendFrom('a')).code).toBe(0);
    const [row] = await reportOf('a');
    const store = databaseStore(stateUrl, join(dir.path, 'receiver-cache'));
    const id = (await store.campaigns())[0]!.manifest.id;
    const kept = {
      messageId: row!['messageId']!,
      status: 'UNDELIV',
      timestamp: undefined,
      transactionId: undefined,
      receivedAt: '2026-11-29T12:00:01.000Z',
    };
    await store.deliveries.add(id, kept);
    const read = async () => {
      const all = [];
      for await (const report of store.deliveries.read(id)) all.push(report);
      return all;
    };
    expect(await read()).toEqual([kept]);
    // The same content sent again with --force: the same MessageIds, a new journal generation.
    expect((await sendFrom('b', ['--force', '--yes'])).code).toBe(0);
    expect(await read()).toEqual([]);
    await store.close();
  });

  it('retry on another host: an unknown record they confirm is not re-sent; an undelivered one is, with --include undelivered', async () => {
    sim.setFaults({ errorAfterProcessing: 0.3 });
    expect((await sendFrom('a', ['--retries', '0'])).code).toBe(1);
    const rows = await reportOf('a');
    const had = new Set(sim.ledger.map((entry) => entry.messageId));
    const confirmed = rows.find((r) => r['outcome'] === 'unknown' && had.has(r['messageId']!))!;
    const undelivered = rows.find((r) => r['outcome'] === 'accepted')!;
    const store = databaseStore(stateUrl, join(dir.path, 'receiver-cache'));
    const [campaign] = await store.campaigns();
    const id = campaign!.manifest.id;
    const keep = (messageId: string, status: string) =>
      store.deliveries.add(id, {
        messageId,
        status,
        timestamp: undefined,
        transactionId: undefined,
        receivedAt: '2026-11-29T12:00:01.000Z',
      });
    await keep(confirmed['messageId']!, 'DELIVRD');
    await keep(undelivered['messageId']!, 'UNDELIV');
    await store.close();

    sim.setFaults({});
    const before = sim.ledger.length;
    const retried = await runInProcess(
      ['retry', id, '--include', 'unknown,undelivered', '--endpoint', sim.url, '--yes', '--json'],
      {
        cwd: dir.path,
        env: {
          SMS_SEND_STATE_DIR: join(dir.path, 'b'),
          SMS_SEND_STATE_URL: stateUrl,
          SMS_SEND_USERNAME: 'u',
          SMS_SEND_PASSWORD: 'p',
        },
      },
    );
    expect(retried.code, retried.stderr).toBe(0);
    const sentNow = sim.ledger.slice(before).map((entry) => entry.destination);
    expect(sentNow).toContain(undelivered['to']);
    expect(sentNow).not.toContain(confirmed['to']);
    const expected = rows.filter(
      (r) =>
        (r['outcome'] === 'unknown' && r !== confirmed) ||
        r['outcome'] === 'failed' ||
        r['outcome'] === 'rejected' ||
        r === undelivered,
    );
    expect(sentNow.sort()).toEqual(expected.map((r) => r['to']).sort());
  });
});

type Listed = { campaigns: { id: string }[] };

describe('report ID --output', () => {
  const onC = (args: string[]) =>
    runInProcess(args, {
      cwd: dir.path,
      env: { SMS_SEND_STATE_DIR: join(dir.path, 'c'), SMS_SEND_STATE_URL: stateUrl },
    });

  it('writes on another host the report the finishing run wrote, byte for byte, past a part of the copy', async () => {
    // Rows enough for a report of several parts (a part is 1 MiB).
    await writeCampaignCsv(join(dir.path, 'campaign.csv'), 20_000);
    expect((await sendFrom('a', ['--batch-size', '100'])).code).toBe(0);
    const finished = await readFile(join(dir.path, 'a.report.csv'));
    expect(finished.length).toBeGreaterThan(2 * 1024 * 1024);
    const id = (JSON.parse((await onC(['campaigns', '--json'])).stdout) as Listed).campaigns[0]!.id;
    const output = join(dir.path, 'from-the-database.csv');
    const written = await onC(['report', id, '--output', output, '--json']);
    expect(written.code, written.stderr).toBe(0);
    expect((await readFile(output)).equals(finished)).toBe(true);
    expect((JSON.parse(written.stdout) as { report: { total: number } }).report.total).toBe(20_000);
  });

  it('folds in the delivery reports the database keeps', async () => {
    expect((await sendFrom('a')).code).toBe(0);
    const rows = await reportOf('a');
    const store = databaseStore(stateUrl, join(dir.path, 'receiver-cache'));
    const id = (await store.campaigns())[0]!.manifest.id;
    await store.deliveries.add(id, {
      messageId: rows[4]!['messageId']!,
      status: 'DELIVRD',
      timestamp: '20261129120000',
      transactionId: undefined,
      receivedAt: '2026-11-29T12:00:01.000Z',
    });
    await store.close();
    const output = join(dir.path, 'out.csv');
    const written = await onC(['report', id, '--output', output]);
    expect(written.code, written.stderr).toBe(0);
    expect(written.stderr).toContain('the delivery reports of 1 message folded in');
    const out = parseCsv(await readFile(output, 'utf8'));
    expect(out.map((row) => row['deliveryStatus'] ?? '')).toEqual(
      rows.map((_, i) => (i === 4 ? 'DELIVRD' : '')),
    );
    expect(out[4]).toMatchObject({
      ...rows[4],
      deliveryStatus: 'DELIVRD',
      deliveredAt: '2026-11-29T12:00:00Z',
    });
  });

  it("refuses an older run's report for the newest run's (exit 2): the newest could not keep it", async () => {
    expect((await sendFrom('a')).code).toBe(0);
    const id = (JSON.parse((await onC(['campaigns', '--json'])).stdout) as Listed).campaigns[0]!.id;
    // As if the newest run's copy had failed as it ended: the copy kept is of an earlier run.
    const client = new pg.Client({ connectionString: stateUrl });
    await client.connect();
    await client.query(
      'UPDATE sms_send.campaigns SET manifest = jsonb_set(manifest, $2, $3) WHERE id = $1',
      [id, '{runs}', '2'],
    );
    await client.end();
    const refused = await onC(['report', id, '--output', join(dir.path, 'o.csv')]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      `campaign ${id}'s newest run (run 2) has kept no report in postgres://***@`,
    );
    expect(refused.stderr).toContain(
      `: its report could not be kept as it ended; it is ${join(dir.path, 'a.report.csv')} on host ${hostname()} (the one kept is run 1's).`,
    );
  });

  it.each<[string, (id: string) => string[], RegExp]>([
    ['a path, not an ID', () => ['report', 'x/report.csv', '--output', 'o.csv'], /give its ID/],
    [
      'another format',
      (id) => ['report', id, '--output', 'o.json'],
      /report is csv .*name a file with its extension/,
    ],
  ])('refuses %s (exit 2), writing nothing', async (_what, args, message) => {
    expect((await sendFrom('a')).code).toBe(0);
    const id = (JSON.parse((await onC(['campaigns', '--json'])).stdout) as Listed).campaigns[0]!.id;
    const refused = await onC(args(id));
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(message);
    expect((await readdir(dir.path)).filter((name) => name.startsWith('o.'))).toEqual([]);
  });
});
