// A send to sms-send's simulator is a rehearsal: listed as one, and the same content sent to the
// real gateway afterwards goes out instead of being refused as already sent; the rehearsal is
// kept under a name of its own, and its report moved out of the way (docs/campaign-state.md#rehearsals).
import { access, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';
import { parseCsv, tempDir, writeCampaignCsv } from '../helpers/files.js';
import { runInProcess } from '../helpers/in-process.js';

const RECORDS = 12;
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
    const [first] = await campaigns();
    expect(first).toMatchObject({ rehearsal: true, counts: { accepted: RECORDS } });

    const real = await run(['shop.csv', '--endpoint', gateway.url, '--yes']);
    expect(real.code, real.stderr).toBe(0);
    expect(gateway.ledger).toHaveLength(RECORDS);
    const kept = `${first!.id}-rehearsal-1`;
    expect(real.stderr).toContain(
      `campaign ${first!.id} was a rehearsal (sent to a simulator only): kept as ${kept}`,
    );
    const moved = join(dir.path, 'shop.rehearsal.report.csv');
    expect(real.stderr).toContain(
      `the report shop.report.csv was a rehearsal's: it is now ${moved}`,
    );
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
});
