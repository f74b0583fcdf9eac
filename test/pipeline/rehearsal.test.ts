// A send to sms-send's simulator is a rehearsal: listed as one, and the same content sent to the
// real gateway afterwards goes out instead of being refused as already sent; the rehearsal is
// kept under a name of its own, and its report moved out of the way (docs/campaign-state.md#rehearsals).
import { access, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';
import type { CliResult } from '../helpers/cli.js';
import { parseCsv, tempDir, writeCampaignCsv } from '../helpers/files.js';
import { runInProcess } from '../helpers/in-process.js';

const RECORDS = 12;
const SIMULATED = 'Simulated run: the built-in simulator answered; nothing reached a real phone.';
let dir: Awaited<ReturnType<typeof tempDir>>;
/** `sms-send simulate`, as a user runs it beside the real gateway. */
let rehearsal: Simulator;
/** The real gateway, as far as sms-send can tell. */
let gateway: Simulator;

beforeAll(async () => {
  dir = await tempDir();
  rehearsal = await startSimulator({ rehearsal: true });
  gateway = await startSimulator();
  await writeCampaignCsv(join(dir.path, 'shop.csv'), RECORDS);
});
afterAll(async () => {
  await rehearsal.stop();
  await gateway.stop();
  await dir.remove();
});

const ENV = { SMS_SEND_USERNAME: 'shop', SMS_SEND_PASSWORD: 'pw' };
const run = (args: string[]) => runInProcess(args, { cwd: dir.path, env: ENV });

interface Listed {
  id: string;
  rehearsal: boolean;
  report: string;
  counts: { accepted: number };
}

async function campaigns(): Promise<Listed[]> {
  const listed = await run(['campaigns', '--json']);
  return (JSON.parse(listed.stdout) as { campaigns: Listed[] }).campaigns;
}

describe('rehearsals', () => {
  it('a standalone simulator makes a rehearsal; the real send of the same content goes out', async () => {
    const tried = await run(['shop.csv', '--endpoint', rehearsal.url, '--yes']);
    expect(tried.code, tried.stderr).toBe(0);
    expect(rehearsal.ledger).toHaveLength(RECORDS);
    // A rehearsal says so as --simulate's does, whatever endpoint it was given.
    expect(tried.stdout).toContain(SIMULATED);
    const [first] = await campaigns();
    expect(first).toMatchObject({ rehearsal: true, counts: { accepted: RECORDS } });

    const real = await run(['shop.csv', '--endpoint', gateway.url, '--yes']);
    expect(real.code, real.stderr).toBe(0);
    expect(gateway.ledger).toHaveLength(RECORDS);
    expect(real.stdout).not.toContain(SIMULATED);
    const kept = `${first!.id}-rehearsal-1`;
    // Said once, with its name, as the run starts; the report named as the user named it.
    expect(real.stderr.split('\n').filter((line) => line.includes('rehearsal'))).toEqual([
      `campaign ${first!.id} was a rehearsal (sent to a simulator only): kept as ${kept}; this run starts it afresh`,
      "the report shop.report.csv was a rehearsal's: it is now shop.rehearsal.report.csv",
    ]);
    const moved = join(dir.path, 'shop.rehearsal.report.csv');
    // Both are listed: the rehearsal with its report where it now is, the real one as sent.
    const listed = await campaigns();
    expect(listed.map((c) => [c.id, c.rehearsal, c.report]).sort()).toEqual(
      [
        [first!.id, false, join(dir.path, 'shop.report.csv')],
        [kept, true, moved],
      ].sort(),
    );
    const rows = parseCsv(await readFile(moved, 'utf8'));
    expect(rows).toHaveLength(RECORDS);
    await access(join(dir.path, 'shop.report.csv'));

    // Sent for real, it is a campaign like any other: the same send again is refused.
    const again = await run(['shop.csv', '--endpoint', gateway.url, '--yes']);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('was already sent');
    expect(gateway.ledger).toHaveLength(RECORDS);
  });

  it('a dry run after a rehearsal says the send would keep it aside and start afresh', async () => {
    await writeCampaignCsv(join(dir.path, 'promo.csv'), RECORDS);
    const tried = await run(['promo.csv', '--endpoint', rehearsal.url, '--yes']);
    expect(tried.code, tried.stderr).toBe(0);
    const id = /campaign {2}(\w+)/.exec(tried.stdout)![1]!;
    const looked = await run(['promo.csv', '--endpoint', gateway.url, '--dry-run']);
    expect(looked.code, looked.stderr).toBe(0);
    expect(looked.stderr.split('\n').filter((line) => line.includes('rehearsal'))).toEqual([
      `campaign ${id} was a rehearsal (sent to a simulator only): a send keeps it under a name of its own and starts it afresh`,
    ]);
  });

  it('--simulate marks its campaign a rehearsal, and its report does not block the real send', async () => {
    await writeCampaignCsv(join(dir.path, 'news.csv'), RECORDS);
    const tried = await run(['news.csv', '--simulate', '--yes']);
    expect(tried.code, tried.stderr).toBe(0);
    const before = gateway.ledger.length;
    const real = await run(['news.csv', '--endpoint', gateway.url, '--yes']);
    expect(real.code, real.stderr).toBe(0);
    expect(gateway.ledger.length - before).toBe(RECORDS);
    expect(real.stderr).toContain("the report news.report.csv was a rehearsal's");
    const simulated = (await campaigns()).find((c) =>
      c.report.endsWith('news.rehearsal.report.csv'),
    );
    expect(simulated?.rehearsal).toBe(true);
  });

  it('an interrupted rehearsal is refused like any campaign, with --resume named, and never sent twice', async () => {
    const slow = await startSimulator({ rehearsal: true, faults: { latencyMs: 20 } });
    try {
      await writeCampaignCsv(join(dir.path, 'slow.csv'), 400);
      const line = ['slow.csv', '--endpoint', slow.url, '--batch-size', '10', '--concurrency', '1'];
      const stopped = await interruptWhen(slow, line, 50);
      expect(stopped.code, stopped.stderr).toBe(130);
      const sentBefore = slow.ledger.length;
      expect(sentBefore).toBeGreaterThan(0);
      expect(sentBefore).toBeLessThan(400);

      // The same line without --resume: refused, nothing moved, nothing sent.
      const again = await run(line);
      expect(again.code).toBe(2);
      expect(again.stderr).toMatch(/rehearsal \w+ was interrupted on .*Finish it with --resume/);
      expect(again.stderr).toContain('Finish it with:');
      expect(again.stderr).not.toContain('kept as');
      expect(slow.ledger.length).toBe(sentBefore);
      const listed = (await campaigns()).filter((c) => c.report.endsWith('slow.report.csv'));
      expect(listed).toHaveLength(1);

      // What it names finishes it: every MessageId exactly once at the simulator.
      const resumed = await run([...line, '--resume']);
      expect(resumed.code, resumed.stderr).toBe(0);
      const ids = slow.ledger.map((entry) => entry.messageId);
      expect(ids).toHaveLength(400);
      expect(new Set(ids).size).toBe(400);
    } finally {
      await slow.stop();
    }
  });
});

/** Runs ARGS until the simulator accepted `after` messages, then sends the run Ctrl-C's signal. */
async function interruptWhen(sim: Simulator, args: string[], after: number): Promise<CliResult> {
  const before = new Set(process.listeners('SIGINT'));
  const running = run(args);
  while (sim.ledger.length < after) await new Promise((r) => setTimeout(r, 2));
  for (const listener of process.listeners('SIGINT')) {
    if (!before.has(listener)) listener('SIGINT');
  }
  return running;
}
