// Delivery reports in a fleet: two receivers (`sms-send dlr` with a state URL, no report) behind one
// URL, as a Deployment behind a Service runs them, take the simulator's reports for a campaign sent
// on host a; on host c, which received nothing, `report ID`, its page and `campaigns show` count
// every delivery once, from the store. Forged reports at either receiver change nothing.
import type { ChildProcess } from 'node:child_process';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';
import { startBalancer, type Balancer } from '../helpers/balancer.js';
import { collect, killLeft, startCli } from '../helpers/cli.js';
import { parseCsv, tempDir, writeCampaignCsv } from '../helpers/files.js';
import { usePostgres } from '../helpers/postgres.js';

const RECORDS = 300;
const TEMPLATE = /^http:\/\/127\.0\.0\.1:(\d+)\/dlr\?msgid=\S+$/m;

const server = usePostgres();

let dir: Awaited<ReturnType<typeof tempDir>>;
let sim: Simulator;
let balancer: Balancer | undefined;
const children: ChildProcess[] = [];
beforeEach(async () => {
  dir = await tempDir();
  sim = await startSimulator({
    seed: 5,
    deliveryReports: { statusMix: { DELIVRD: 3, UNDELIV: 1 }, retryDelayMs: 50 },
  });
});
afterEach(async () => {
  killLeft(children);
  await balancer?.close();
  await sim.stop();
  await dir.remove();
});

/** What host `name` runs, in a folder and with a host name of its own, sharing the database. */
function on(name: string, stateUrl: string, args: string[]): Promise<ChildProcess> {
  const home = join(dir.path, name);
  return mkdir(home, { recursive: true }).then(() => {
    const child = startCli(args, {
      cwd: home,
      host: name,
      env: {
        SMS_SEND_STATE_URL: stateUrl,
        SMS_SEND_STATE_DIR: join(home, 'state'),
        SMS_SEND_USERNAME: 'u',
        SMS_SEND_PASSWORD: 'p',
      },
    });
    children.push(child);
    return child;
  });
}

/** A receiver on host `name`: its port, once it prints its URL template. */
async function receiver(
  name: string,
  stateUrl: string,
): Promise<{ child: ChildProcess; port: number }> {
  const child = await on(name, stateUrl, ['dlr', '--port', '0']);
  let out = '';
  child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const port = await vi.waitFor(
    () => {
      const found = TEMPLATE.exec(out);
      if (!found) throw new Error(`no URL template yet: ${out}`);
      return Number(found[1]);
    },
    { timeout: 15_000, interval: 50 },
  );
  return { child, port };
}

/** The receiver's summary once stopped (Ctrl-C), as --json would not be: its printed counts. */
async function stop(child: ChildProcess): Promise<{ code: number | null; stdout: string }> {
  const done = collect(child);
  child.kill('SIGINT');
  return done;
}

describe('delivery reports kept in PostgreSQL', () => {
  it('two receivers behind one URL: host c counts every delivery once; forged reports change nothing', async () => {
    const stateUrl = await server.database();
    const [r1, r2] = await Promise.all([receiver('r1', stateUrl), receiver('r2', stateUrl)]);
    balancer = await startBalancer([r1.port, r2.port]);
    const input = join(dir.path, 'campaign.csv');
    await writeCampaignCsv(input, RECORDS);
    const report = join(dir.path, 'a', 'report.csv');
    const sent = await collect(
      await on('a', stateUrl, [
        input,
        '--endpoint',
        sim.url,
        '--report',
        report,
        '--dlr-url',
        `${balancer.url}/dlr?msgid=[$MSGID]&status=[$STATUS]&timestamp=[$TIMESTAMP]`,
        '--yes',
      ]),
    );
    expect(sent.code, sent.stderr).toBe(0);
    await sim.deliveryReportsSettled();

    // Every report reached a receiver and was acknowledged; both receivers took their share.
    const calls = sim.deliveryReports;
    expect(calls).toHaveLength(RECORDS);
    expect(calls.filter((c) => c.httpStatus !== 200)).toEqual([]);
    expect(balancer.forwarded.every((n) => n > 0)).toBe(true);

    // Forged at each receiver: a genuine message's URL with its proof altered, and without one.
    const genuine = new URL(calls[0]!.url);
    const forged = (port: number, mutate: (url: URL) => void) => {
      const url = new URL(genuine);
      url.host = `127.0.0.1:${port}`;
      url.searchParams.set('status', 'EXPIRED');
      url.searchParams.set('timestamp', '20991231235959');
      mutate(url);
      return fetch(url).then((res) => res.status);
    };
    const proof = genuine.searchParams.get('smsig')!;
    expect(
      await Promise.all([
        forged(r1.port, (url) => url.searchParams.set('smsig', `${proof.slice(0, -2)}xx`)),
        forged(r2.port, (url) => url.searchParams.delete('smsig')),
      ]),
    ).toEqual([200, 200]);

    // The report on host a holds no delivery: the receivers kept them in the store alone.
    const rows = parseCsv(await readFile(report, 'utf8'));
    expect(rows.filter((row) => (row['deliveryStatus'] ?? '') !== '')).toEqual([]);

    // What the simulator reported, once per message: what every reader on host c must count.
    const expected: Record<string, number> = {};
    for (const call of sim.deliveryReportCalls)
      expected[call.status] = (expected[call.status] ?? 0) + 1;
    expect(Object.keys(expected).sort()).toEqual(['DELIVRD', 'UNDELIV']);

    const onC = async (args: string[]) => collect(await on('c', stateUrl, args));
    const listed = await onC(['campaigns', '--json']);
    const [campaign] = (JSON.parse(listed.stdout) as { campaigns: { id: string }[] }).campaigns;
    const id = campaign!.id;

    const shown = await onC(['campaigns', 'show', id, '--json']);
    expect(shown.code, shown.stderr).toBe(0);
    expect((JSON.parse(shown.stdout) as { deliveries: unknown }).deliveries).toEqual(expected);

    const counted = await onC(['report', id, '--json']);
    expect(counted.code, counted.stderr).toBe(0);
    const counts = (JSON.parse(counted.stdout) as { report: Record<string, unknown> }).report;
    expect(counts['byDeliveryStatus']).toEqual(expected);
    expect(counts['delivered']).toBe(expected['DELIVRD']);
    expect(counts['awaitingDeliveryReport']).toBe(0);

    const page = join(dir.path, 'c', 'page.html');
    const drawn = await onC(['report', id, '--html', page]);
    expect(drawn.code, drawn.stderr).toBe(0);
    const html = await readFile(page, 'utf8');
    const funnel = (key: string) =>
      Number(new RegExp(`data-funnel="${key}"><span data-n="(\\d+)"`).exec(html)?.[1]);
    expect(funnel('delivered')).toBe(expected['DELIVRD']);
    expect(funnel('undelivered')).toBe(expected['UNDELIV']);
    expect(funnel('expired')).toBe(0);

    // Each receiver refused its forgery, and says where it kept the rest.
    const [s1, s2] = await Promise.all([stop(r1.child), stop(r2.child)]);
    expect(s1.code).toBe(0);
    expect(s2.code).toBe(0);
    expect(s1.stdout).toMatch(/bad signature\s+1/);
    expect(s2.stdout).toMatch(/unsigned\s+1/);
    expect(`${s1.stdout}${s2.stdout}`).toContain('kept in postgres://');
  });

  it("check --await-dlr on host c hears of its test message's report from whichever receiver took it", async () => {
    const stateUrl = await server.database();
    const [r1, r2] = await Promise.all([receiver('r1', stateUrl), receiver('r2', stateUrl)]);
    balancer = await startBalancer([r1.port, r2.port]);
    const dlrUrl = `${balancer.url}/dlr?msgid=[$MSGID]&status=[$STATUS]&timestamp=[$TIMESTAMP]`;
    // A canary's report proven with a key not the store's: refused, and no check hears of it.
    const forged = await fetch(
      `${balancer.url}/dlr?msgid=check-forged&status=DELIVRD&timestamp=1&smsig=${'A'.repeat(22)}._canary`,
    );
    expect(forged.status).toBe(200);

    const canary = async (status: string) => {
      const gateway = await startSimulator({ deliveryReports: { status, delayMs: 50 } });
      try {
        const args = ['check', '--to', '4741234567', '--await-dlr', '20s'];
        const done = await collect(
          await on('c', stateUrl, [...args, '--endpoint', gateway.url, '--dlr-url', dlrUrl]),
        );
        await gateway.deliveryReportsSettled();
        return { ...done, calls: gateway.deliveryReports };
      } finally {
        await gateway.stop();
      }
    };
    const delivered = await canary('DELIVRD');
    expect(delivered.code, delivered.stderr).toBe(0);
    expect(delivered.stdout).toContain(
      `delivery reports to ${dlrUrl} (kept by the fleet's receivers in postgres://`,
    );
    expect(delivered.stdout).toMatch(/report\s+DELIVRD after/);
    expect(delivered.stdout).toContain('canary passed');
    // The test message's report carried a proof for no campaign, and a receiver took it.
    expect(delivered.calls).toHaveLength(1);
    expect(delivered.calls[0]).toMatchObject({ httpStatus: 200 });
    expect(new URL(delivered.calls[0]!.url).searchParams.get('smsig')).toMatch(/\._canary$/);

    const undelivered = await canary('UNDELIV');
    expect(undelivered.code, undelivered.stderr).toBe(1);
    expect(undelivered.stdout).toMatch(/report\s+UNDELIV after/);

    // Turn by turn: the forgery to r1, which refused it, the first report to r2, the second to r1.
    expect(balancer.forwarded).toEqual([2, 1]);
    const [s1, s2] = await Promise.all([stop(r1.child), stop(r2.child)]);
    expect(s1.stdout).toMatch(/bad signature\s+1/);
    expect(s2.stdout).not.toMatch(/bad signature\s+1/);
  });
});
