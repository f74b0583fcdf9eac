// One count for each thing: after a stop, the report, `campaigns`, the refusal of the same line
// without --resume, the page and what --resume then sends give the same numbers (the issue's
// reproduction: the stop said "failed 1,440", the refusal after it "110 failed of 2,001 records").
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeCampaignCsv } from '../helpers/files.js';
import { campaignsPerTest } from '../helpers/follow-up.js';
import { folderStoreAt } from '../helpers/state.js';
import { findCampaign } from '../../src/journal/lookup.js';

const t = campaignsPerTest(7);

describe('a gateway stop, counted everywhere alike', () => {
  it('report, campaigns, refusal, page and the resume agree on what failed', async () => {
    await writeCampaignCsv(join(t.dir, 'c.csv'), 300);
    const report = join(t.dir, 'c.report.csv');
    const line = ['c.csv', '--report', report, '--batch-size', '10', '--concurrency', '1'];
    t.sim.setFaults({ unavailable: 0.5 });
    const stopped = await t.run([...line, '--retries', '0', '--outage-grace', '0']);
    expect(stopped.code, stopped.error).toBe(3);
    const failed = stopped.rows.filter((r) => r.outcome === 'failed').length;
    const accepted = stopped.rows.filter((r) => r.outcome === 'accepted').length;
    expect(failed).toBeGreaterThan(0);
    expect(accepted + failed).toBe(300);

    const store = folderStoreAt(t.stateDir);
    const entry = await findCampaign(store, stopped.campaign!).finally(() => store.close());
    expect(entry.manifest.counts).toMatchObject({ accepted, failed });

    const refused = await t.run(line);
    expect(refused.code).toBe(2);
    expect(refused.error).toContain(`${accepted} accepted, ${failed} failed of 300 records`);

    const page = await t.page(stopped.campaign!);
    expect(page.data.counts.byOutcome).toMatchObject({ accepted, failed });

    t.sim.setFaults({});
    const resumed = await t.run([...line, '--resume']);
    expect(resumed.code, resumed.error).toBe(0);
    expect(resumed.messages.length).toBe(failed);
  });
});
