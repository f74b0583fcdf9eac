// One count for each thing: after a stop, the report, `campaigns`, the refusal of the same line
// without --resume, the page and what --resume then sends give the same numbers (the issue's
// reproduction: the stop said "failed 1,440", the refusal after it "110 failed of 2,001 records").
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FolderStore } from '../../src/journal/folder-store.js';
import { campaignPage } from '../../src/report/html/campaign-page.js';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';
import { tempDir, writeCampaignCsv } from '../helpers/files.js';
import { runCommand } from '../helpers/follow-up.js';

let dir: Awaited<ReturnType<typeof tempDir>>;
let sim: Simulator;
let stateDir: string;

beforeEach(async () => {
  dir = await tempDir();
  stateDir = join(dir.path, 'state');
  sim = await startSimulator({ seed: 7 });
});
afterEach(async () => {
  await sim.stop();
  await dir.remove();
});

const run = (argv: string[]) => runCommand(argv, { cwd: dir.path, stateDir, sim });

async function withStore<T>(use: (store: FolderStore) => Promise<T>): Promise<T> {
  const store = new FolderStore(stateDir);
  try {
    return await use(store);
  } finally {
    await store.close();
  }
}

describe('a gateway stop, counted everywhere alike', () => {
  it('report, campaigns, refusal, page and the resume agree on what failed', async () => {
    await writeCampaignCsv(join(dir.path, 'c.csv'), 300);
    const report = join(dir.path, 'c.report.csv');
    const line = ['c.csv', '--report', report, '--batch-size', '10', '--concurrency', '1'];
    sim.setFaults({ unavailable: 0.5 });
    const stopped = await run([...line, '--retries', '0', '--outage-grace', '0']);
    expect(stopped.code, stopped.error).toBe(3);
    const failed = stopped.rows.filter((r) => r.outcome === 'failed').length;
    const accepted = stopped.rows.filter((r) => r.outcome === 'accepted').length;
    expect(failed).toBeGreaterThan(0);
    expect(accepted + failed).toBe(300);

    const entry = await withStore(async (store) => store.find(stopped.campaign!));
    expect(entry.manifest.counts).toMatchObject({ accepted, failed });

    const refused = await run(line);
    expect(refused.code).toBe(2);
    expect(refused.error).toContain(`${accepted} accepted, ${failed} failed of 300 records`);

    const page = await withStore((store) =>
      campaignPage({ what: stopped.campaign!, store, program: 'sms-send', now: 0 }),
    );
    expect(page.data.counts.byOutcome).toMatchObject({ accepted, failed });

    sim.setFaults({});
    const resumed = await run([...line, '--resume']);
    expect(resumed.code, resumed.error).toBe(0);
    expect(resumed.messages.length).toBe(failed);
  });
});
