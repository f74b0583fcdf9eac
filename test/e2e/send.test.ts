// The main job as a user runs it: the built binary on the sample campaign, against the simulator.
import { spawn } from 'node:child_process';
import { copyFile, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';
import { BIN, cleanEnv, collect, runCli, startCli, type CliResult } from '../helpers/cli.js';
import { parseCsv, tempDir } from '../helpers/files.js';

const SAMPLE = new URL('../../samples/campaign.csv', import.meta.url);

describe('sms-send <campaign.csv>', () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let campaign: string;

  beforeAll(async () => {
    dir = await tempDir();
    campaign = join(dir.path, 'campaign.csv');
    await copyFile(SAMPLE, campaign);
  });
  afterAll(() => dir.remove());

  it('sends the sample with --simulate, exits 0 and writes campaign.report.csv beside it', async () => {
    const result = await runCli([campaign, '--simulate'], { cwd: dir.path });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('12 of 12 messages accepted');
    expect(result.stdout).toContain('nothing reached a real phone');
    expect(result.stdout).toContain(join(dir.path, 'campaign.report.csv'));
    expect(result.stdout.includes('\u001b[')).toBe(false);

    const rows = parseCsv(await readFile(join(dir.path, 'campaign.report.csv'), 'utf8'));
    expect(rows.map((r) => r.row)).toEqual(Array.from({ length: 12 }, (_, i) => String(i + 1)));
    expect(rows.every((r) => r.outcome === 'accepted' && r.transactionId !== '')).toBe(true);
    expect(rows[0]).toMatchObject({ to: '4741234567', statusCode: '0', attempts: '1', error: '' });
  });

  it('refuses to send the same campaign twice without --force (exit 2, nothing sent)', async () => {
    const before = await readFile(join(dir.path, 'campaign.report.csv'), 'utf8');
    const result = await runCli([campaign, '--simulate'], { cwd: dir.path });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('report');
    expect(result.stderr).toContain('already exists');
    expect(result.stderr).toContain('--force');
    expect(result.stdout).toBe('');
    expect(await readFile(join(dir.path, 'campaign.report.csv'), 'utf8')).toBe(before);
  });

  it('sends again with --force', async () => {
    const result = await runCli([campaign, '--simulate', '--force'], { cwd: dir.path });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('12 of 12 messages accepted');
  });

  it('refuses to run without an endpoint or --simulate, naming both ways out (exit 2)', async () => {
    const result = await runCli([campaign, '--report', join(dir.path, 'none.csv')], {
      cwd: dir.path,
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--endpoint');
    expect(result.stderr).toContain('--simulate');
    expect(result.stderr).toContain('Nothing was sent');
  });

  it('--dry-run prints the plan and sends nothing', async () => {
    const report = join(dir.path, 'dry.csv');
    const result = await runCli([campaign, '--dry-run', '--report', report], { cwd: dir.path });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/records\s+12/);
    expect(result.stdout).toMatch(/batches\s+1 \(up to 100 messages each\)/);
    expect(result.stdout).toMatch(/UCS-2 forced by \d+ characters?:\n {4}"🎉" \(U\+1F389\) in /);
    // It needs no gateway, but the real run would be refused without one, and the plan says so.
    expect(result.stdout).toContain(
      'no gateway endpoint is set: the real run needs --endpoint URL (or --simulate)\n',
    );
    await expect(readFile(report)).rejects.toThrow(/ENOENT/);

    const simulated = await runCli([campaign, '--dry-run', '--simulate', '--report', report], {
      cwd: dir.path,
    });
    expect(simulated.code).toBe(0);
    expect(simulated.stdout).not.toContain('no gateway endpoint');
  });

  it('an invalid record stops the run with exit 2, naming file, line and field', async () => {
    const bad = join(dir.path, 'bad.csv');
    await writeFile(bad, 'to,text\n4741234567,hello\nnot-a-number,hi\n4741234568,\n');
    const result = await runCli([bad, '--simulate'], { cwd: dir.path });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${bad}:3: to: "not-a-number" not a phone number`);
    expect(result.stderr).toContain(`${bad}:4: text: is empty`);
    expect(result.stderr).toContain('Nothing was sent');
    await expect(readFile(join(dir.path, 'bad.report.csv'))).rejects.toThrow(/ENOENT/);
  });
});

describe('sms-send against a separately started `sms-send simulate`', () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let simulator: Simulator;

  beforeAll(async () => {
    dir = await tempDir();
    simulator = await startSimulator({ credentials: { username: 'acme', password: 's3cret-pw' } });
  });
  afterAll(async () => {
    await simulator.stop();
    await dir.remove();
  });

  it('sends every record once and reports each with the gateway TransactionId', async () => {
    const campaign = join(dir.path, 'campaign.csv');
    await copyFile(SAMPLE, campaign);
    const result = await runCli([campaign, '--endpoint', simulator.url], {
      cwd: dir.path,
      env: { SMS_SEND_USERNAME: 'acme', SMS_SEND_PASSWORD: 's3cret-pw' },
    });
    expect(result.code).toBe(0);
    expect(result.stdout).not.toContain('Simulated run');
    const rows = parseCsv(await readFile(join(dir.path, 'campaign.report.csv'), 'utf8'));
    expect(rows).toHaveLength(12);
    expect(simulator.ledger).toHaveLength(12);
    const byId = new Map(simulator.ledger.map((e) => [e.messageId, e.transactionId]));
    for (const row of rows) expect(byId.get(row.messageId!)).toBe(row.transactionId);
    expect(`${result.stdout}${result.stderr}`).not.toContain('s3cret-pw');
  });

  it('exits 3 when the gateway refuses the credentials', async () => {
    const campaign = join(dir.path, 'again.csv');
    await copyFile(SAMPLE, campaign);
    const result = await runCli([campaign, '--endpoint', simulator.url], {
      cwd: dir.path,
      env: { SMS_SEND_USERNAME: 'acme', SMS_SEND_PASSWORD: 'wrong-pw' },
    });
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('refused the credentials');
    const rows = parseCsv(await readFile(join(dir.path, 'again.report.csv'), 'utf8'));
    expect(rows).toHaveLength(12);
    expect(rows.every((r) => r.outcome === 'failed')).toBe(true);
  });

  it('the simulate command serves a campaign over loopback', async () => {
    const server = startCli(['simulate', '--port', '0'], { cwd: dir.path });
    const banner = await new Promise<string>((resolve, reject) => {
      let seen = '';
      server.stderr?.on('data', (chunk: Buffer) => {
        seen += chunk.toString();
        if (seen.includes('Ctrl-C stops it.')) resolve(seen);
      });
      server.on('exit', () => reject(new Error(`simulate exited: ${seen}`)));
    });
    const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(banner)![1]!;
    const done = collect(server);
    // The banner's command, run as printed (through a shell), from a folder of its own.
    const command = /send to it: +(.*)/.exec(banner)![1]!;
    expect(command).toContain(`--endpoint ${url}`);
    // Run from a clone, where the shell does not find sms-send: the command says npx.
    expect(command).toContain(' npx sms-send ');
    const result = await new Promise<CliResult>((resolve, reject) => {
      const child = spawn(
        'sh',
        ['-c', command.replace(' npx sms-send ', ` ${process.execPath} ${BIN} `)],
        {
          cwd: dir.path,
          // cleanEnv() carries the test's own SMS_SEND_STATE_DIR, never the user's.
          env: cleanEnv(),
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      collect(child).then(resolve, reject);
    });
    server.kill('SIGINT');
    const stopped = await done;
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(stopped.code).toBe(0);
    expect(stopped.stderr).toContain('accepting 12 messages');
  });
});
