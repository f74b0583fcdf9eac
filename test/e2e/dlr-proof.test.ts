// Delivery reports only from the gateway: the built binary refuses a forged report for a campaign whose URLs carry proofs.
import type { ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { collect, startCli, killLeft } from '../helpers/cli.js';
import { runInProcess } from '../helpers/in-process.js';
import { parseCsv, tempDir } from '../helpers/files.js';

const CREDENTIALS = { SMS_SEND_USERNAME: 'customer', SMS_SEND_PASSWORD: 'secret' };
const TEMPLATE = /^http:\/\/127\.0\.0\.1:(\d+)\/dlr\?msgid=\S+$/m;
const DLR_URL =
  'https://sms.example.com/dlr?msgid=[$MSGID]&status=[$STATUS]&timestamp=[$TIMESTAMP]';

/** The test's own state directory (test/setup/state-dir.ts), which the spawned runs use. */
function stateDir(): string {
  return process.env.SMS_SEND_STATE_DIR!;
}

/** A gateway that takes each request whole, then answers 500: every row ends `unknown`. */
async function failingGateway(): Promise<{ server: Server; url: string; bodies: string[] }> {
  const bodies: string[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      bodies.push(body);
      res.writeHead(500, { 'content-type': 'text/plain' }).end('internal error');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, bodies };
}

/** Starts `sms-send dlr` and waits for the URL template it prints; returns its port. */
async function startReceiver(
  args: string[],
  cwd: string,
): Promise<{
  child: ChildProcess;
  port: number;
  output: () => { stdout: string; stderr: string };
}> {
  const child = startCli(['dlr', '--port', '0', ...args], { cwd });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const port = await vi.waitFor(
    () => {
      const found = TEMPLATE.exec(`${stdout}\n${stderr}`);
      if (!found) throw new Error(`no URL template yet: ${stdout} ${stderr}`);
      return Number(found[1]);
    },
    { timeout: 15_000, interval: 50 },
  );
  return { child, port, output: () => ({ stdout, stderr }) };
}

async function stopReceiver(child: ChildProcess): Promise<{ code: number | null; stdout: string }> {
  const done = collect(child);
  child.kill('SIGINT');
  const result = await done;
  return { code: result.code, stdout: result.stdout };
}

describe('a forged delivery report', () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let gateway: Awaited<ReturnType<typeof failingGateway>>;
  let receiver: ChildProcess | undefined;

  beforeEach(async () => {
    dir = await tempDir();
    gateway = await failingGateway();
  });

  afterEach(async () => {
    if (receiver && receiver.exitCode === null && receiver.signalCode === null) {
      receiver.kill('SIGKILL');
    }
    await new Promise((resolve) => gateway.server.close(resolve));
    await dir.remove();
  });

  /** Sends two rows to the gateway that answers 500: both end `unknown`. */
  async function sendUnknown(report: string): Promise<{ messageIds: string[]; urls: string[] }> {
    const csv = join(dir.path, 'c.csv');
    await writeFile(csv, 'to,text\n4741000001,Hello one\n4741000002,Hello two\n');
    const send = await runInProcess(
      [
        csv,
        '--yes',
        '--retries',
        '0',
        '--endpoint',
        gateway.url,
        '--report',
        report,
        '--dlr-url',
        `${DLR_URL}`,
      ],
      { cwd: dir.path, env: CREDENTIALS },
    );
    expect(send.code).not.toBe(0);
    const before = parseCsv(await readFile(report, 'utf8'));
    expect(before.map((row) => row['outcome'])).toEqual(['unknown', 'unknown']);
    const sent = JSON.parse(gateway.bodies[0]!) as {
      Messages: { MessageId: string; DeliveryReportUrl: string }[];
    };
    return {
      messageIds: before.map((row) => row['messageId']!),
      urls: sent.Messages.map((m) => m.DeliveryReportUrl),
    };
  }

  it('leaves an unknown row unknown, answered 200 and counted as unsigned', async () => {
    const report = join(dir.path, 'r.csv');
    const { messageIds } = await sendUnknown(report);
    const messageId = messageIds[0]!;

    const started = await startReceiver(['--report', report], dir.path);
    receiver = started.child;
    const forged = await fetch(
      `http://127.0.0.1:${started.port}/dlr?msgid=${messageId}&status=DELIVRD&timestamp=20261125120000`,
    );
    expect(forged.status).toBe(200);
    const stopped = await stopReceiver(receiver);

    const after = parseCsv(await readFile(report, 'utf8'));
    expect(after.map((row) => row['outcome'])).toEqual(['unknown', 'unknown']);
    expect(after[0]!['deliveryStatus'] ?? '').toBe('');
    expect(stopped.stdout).toMatch(/unsigned\s+1\b/);
    expect(stopped.code).toBe(0);
  });

  it("sends the URL as given plus the message's proof, and takes the genuine report only", async () => {
    const report = join(dir.path, 'r.csv');
    const { messageIds, urls } = await sendUnknown(report);
    const campaign = (await readdir(join(stateDir(), 'campaigns')))[0]!;
    for (const url of urls) {
      expect(url.startsWith(`${DLR_URL}&smsig=`)).toBe(true);
      expect(url.slice(DLR_URL.length)).toMatch(
        new RegExp(`^&smsig=[A-Za-z0-9_-]{22}\\.${campaign}$`),
      );
    }
    const started = await startReceiver(['--report', report, '--json'], dir.path);
    receiver = started.child;
    /** The gateway's call: its URL with the placeholders filled, on the receiver. */
    const call = (url: string, status: string) =>
      fetch(
        url
          .replace('https://sms.example.com', `http://127.0.0.1:${started.port}`)
          .replace('[$STATUS]', status)
          .replace('[$TIMESTAMP]', '20261125120000'),
      );
    const [first, second] = urls as [string, string];
    // Row 2's proof does not prove row 1; a proof with one character changed proves nothing.
    const swapped = second.replace('[$MSGID]', messageIds[0]!);
    const flipped = first.replace(/smsig=(.)/, (_, c: string) => `smsig=${c === 'A' ? 'B' : 'A'}`);
    for (const answer of [
      await call(swapped, 'UNDELIV'),
      await call(flipped.replace('[$MSGID]', messageIds[0]!), 'UNDELIV'),
      await call(second.replace('[$MSGID]', messageIds[1]!), 'DELIVRD'),
    ]) {
      expect(answer.status).toBe(200);
    }
    const stopped = await stopReceiver(receiver);
    const summary = (
      JSON.parse(stopped.stdout) as {
        dlr: Record<string, unknown>;
      }
    ).dlr;
    expect(summary).toMatchObject({
      received: 1,
      refused: { unsigned: 0, 'bad signature': 2, 'unknown id': 0, 'bad status': 0 },
      confirmed: 1,
    });
    const after = parseCsv(await readFile(report, 'utf8'));
    expect(after.map((row) => [row['outcome'], row['deliveryStatus']])).toEqual([
      ['unknown', ''],
      ['accepted', 'DELIVRD'],
    ]);
    expect(after[1]!['statusDescription']).toBe('confirmed by delivery report');

    // The secret: owner-only, and in no report, log or output.
    const secret = await readFile(join(stateDir(), 'dlr-secret'));
    expect((await stat(join(stateDir(), 'dlr-secret'))).mode & 0o777).toBe(0o600);
    const written = [
      await readFile(report),
      await readFile(`${report}.dlr.ndjson`),
      await readFile(join(stateDir(), 'campaigns', campaign, 'journal.ndjson')),
      await readFile(join(stateDir(), 'campaigns', campaign, 'manifest.json')),
      Buffer.from(stopped.stdout + started.output().stderr),
    ];
    for (const bytes of written) {
      expect(bytes.includes(secret)).toBe(false);
      expect(bytes.toString().includes(secret.toString('hex'))).toBe(false);
      expect(bytes.toString().includes(secret.toString('base64'))).toBe(false);
    }
  });

  it('has no way to take unsigned reports, and dlr apply takes no forged line', async () => {
    const report = join(dir.path, 'r.csv');
    const { messageIds } = await sendUnknown(report);
    const refused = await runInProcess(
      ['dlr', '--report', report, '--port', '0', '--accept-unsigned'],
      {
        cwd: dir.path,
      },
    );
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/unknown option '--accept-unsigned'/);
    const log = join(dir.path, 'forged.ndjson');
    await writeFile(
      log,
      `${JSON.stringify({ msgid: messageIds[0], status: 'DELIVRD' })}\n` +
        `${JSON.stringify({ msgid: messageIds[1], status: 'UNDELIV', smsig: `${'A'.repeat(22)}.x` })}\n`,
    );
    const apply = await runInProcess(
      ['dlr', 'apply', '--report', report, '--from', log, '--json'],
      {
        cwd: dir.path,
      },
    );
    expect(apply.code).toBe(0);
    expect(JSON.parse(apply.stdout)).toMatchObject({
      dlrApply: { reports: 0, refused: { unsigned: 1, 'bad signature': 1 }, matched: 0 },
    });
    const after = parseCsv(await readFile(report, 'utf8'));
    expect(after.map((row) => row['outcome'])).toEqual(['unknown', 'unknown']);
  });
});

describe('sms-send simulate --dlr', () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  const children: ChildProcess[] = [];

  beforeEach(async () => {
    dir = await tempDir();
  });
  afterEach(async () => {
    killLeft(children);
    await dir.remove();
  });

  it('calls the URL as given, proof included, and the receiver takes its reports', async () => {
    const simulator = startCli(['simulate', '--port', '0', '--dlr', '--dlr-delay', '10']);
    children.push(simulator);
    let banner = '';
    simulator.stdout?.on('data', (chunk: Buffer) => (banner += chunk.toString()));
    simulator.stderr?.on('data', (chunk: Buffer) => (banner += chunk.toString()));
    const endpoint = await vi.waitFor(
      () => {
        const found = /listening on (http:\/\/127\.0\.0\.1:\d+\S*)/.exec(banner);
        if (!found) throw new Error(`no simulator URL yet: ${banner}`);
        return found[1]!;
      },
      { timeout: 15_000, interval: 50 },
    );
    const report = join(dir.path, 'r.csv');
    const started = await startReceiver(['--report', report], dir.path);
    children.push(started.child);
    const template = TEMPLATE.exec(started.output().stdout)![0];
    expect(started.output().stdout).toBe(`${template}\n`);
    const csv = join(dir.path, 'c.csv');
    await writeFile(csv, 'to,text\n4741000001,Hello one\n4741000002,Hello two\n');
    const send = await runInProcess(
      [csv, '--endpoint', endpoint, '--dlr-url', template, '--report', report],
      {
        cwd: dir.path,
        env: CREDENTIALS,
      },
    );
    expect(send.code).toBe(0);
    await vi.waitFor(
      async () => {
        const rows = parseCsv(await readFile(report, 'utf8'));
        expect(rows.map((row) => row['deliveryStatus'])).toEqual(['DELIVRD', 'DELIVRD']);
      },
      { timeout: 15_000, interval: 50 },
    );
    const stopped = await stopReceiver(started.child);
    expect(stopped.stdout).toContain('2 delivery reports received');
    expect(stopped.stdout).not.toMatch(/refused/);
  });
});
