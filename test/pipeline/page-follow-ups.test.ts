// The page of a campaign that was followed up: it names each follow-up and what it settled, does
// not list rows a follow-up got accepted as needing attention, and offers only commands that still
// act (the issue's reproduction: the page kept recommending a retry that answered "nothing to
// retry").
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeCampaignCsv } from '../helpers/files.js';
import { campaignsPerTest, runCommand } from '../helpers/follow-up.js';

const t = campaignsPerTest(3);
const STEADY = ['--batch-size', '4', '--concurrency', '1', '--retries', '0', '--outage-grace', '0'];
const text = (html: string) => html.replace(/<[^>]+>/g, '').replace(/\s+/g, ' ');

describe('the page of a campaign with follow-ups', () => {
  it('names them, counts what they settled, and offers the retry that still acts', async () => {
    await writeCampaignCsv(join(t.dir, 'campaign.csv'), 40);
    t.sim.setFaults({ rejectMessage: 0.3 });
    const report = join(t.dir, 'campaign.report.csv');
    const original = await t.run(['campaign.csv', ...STEADY, '--report', report]);
    const rejected = original.rows.filter((r) => r.outcome === 'rejected').length;
    expect(rejected, `${original.code} ${original.error ?? ''}`).toBeGreaterThan(2);

    // Before any follow-up: every rejection needs attention, and `retry` of the campaign is offered.
    const before = await t.page(original.campaign!);
    expect(before.data.attention.total).toBe(rejected);
    expect(text(before.html)).toContain(`sms-send retry ${original.campaign}`);

    // The follow-up gets some through and some rejected again.
    const followUp = await t.run(['retry', original.campaign!, ...STEADY]);
    const accepted = followUp.rows.filter((r) => r.outcome === 'accepted').length;
    const again = followUp.rows.filter((r) => r.outcome === 'rejected').length;
    expect(accepted).toBeGreaterThan(0);
    expect(again).toBeGreaterThan(0);

    const after = await t.page(original.campaign!);
    const shown = text(after.html);
    expect(after.data.followUps?.settled).toBe(accepted);
    expect(after.data.attention.total).toBe(rejected - accepted);
    expect(after.data.attention.rows.map((r) => r.row).sort((a, b) => a - b)).toEqual(
      followUp.rows
        .filter((r) => r.outcome !== 'accepted')
        .map((r) => Number(r.row))
        .sort((a, b) => a - b),
    );
    expect(shown).toContain('Follow-ups');
    expect(shown).toContain(
      `${followUp.campaign}, finished: ${accepted} accepted, ${again} rejected`,
    );
    expect(shown).toContain(
      `${accepted} of this report's rows were re-sent and accepted by a follow-up`,
    );
    // The original's retry would answer "nothing to retry": only the follow-up's is offered.
    expect(shown).not.toContain(`sms-send retry ${original.campaign} `);
    // Where the campaign went, so the command works as pasted.
    expect(shown).toContain(
      `sms-send retry ${followUp.campaign} --endpoint ${t.sim.url} sends again`,
    );
    expect(shown).toContain(
      `sends again the ${again} records follow-up ${followUp.campaign} could not send`,
    );

    // Run from a clone, the page says it as the terminal does.
    expect(text((await t.page(original.campaign!, 'npx sms-send')).html)).toContain(
      `npx sms-send retry ${followUp.campaign} --endpoint ${t.sim.url}`,
    );
    // And that command is true: the follow-up's retry sends exactly those.
    const third = await t.run(['retry', followUp.campaign!, ...STEADY]);
    expect(third.messages.length).toBe(again);
  });

  it('a follow-up to the simulator settles nothing for a campaign sent to a gateway', async () => {
    await writeCampaignCsv(join(t.dir, 'campaign.csv'), 40);
    t.sim.setFaults({ rejectMessage: 0.3 });
    const report = join(t.dir, 'campaign.report.csv');
    const original = await t.run(['campaign.csv', ...STEADY, '--report', report]);
    const rejected = original.rows.filter((r) => r.outcome === 'rejected').length;
    const rehearsed = await runCommand(['retry', original.campaign!, ...STEADY, '--simulate'], {
      cwd: t.dir,
      stateDir: t.stateDir,
      sim: t.sim,
      simulator: {},
    });
    expect(rehearsed.code, rehearsed.error).toBe(0);
    const after = await t.page(original.campaign!);
    expect(after.data.followUps).toBeUndefined();
    expect(after.data.attention.total).toBe(rejected);
    expect(text(after.html)).toContain(`sms-send retry ${original.campaign}`);
  });

  it('a follow-up whose report is gone: the page says what it cannot know and offers no retry', async () => {
    await writeCampaignCsv(join(t.dir, 'campaign.csv'), 40);
    t.sim.setFaults({ rejectMessage: 0.3 });
    const report = join(t.dir, 'campaign.report.csv');
    const original = await t.run(['campaign.csv', ...STEADY, '--report', report]);
    const followUp = await t.run(['retry', original.campaign!, ...STEADY]);
    await rm(followUp.report!);
    const after = await t.page(original.campaign!);
    const shown = text(after.html);
    expect(after.data.followUps?.uncertain).toBe(true);
    expect(shown).toContain(`${followUp.campaign}, finished: its report cannot be read`);
    expect(shown).toContain('which rows are still open is not known here');
    expect(shown).not.toMatch(/sms-send retry [0-9a-f]{16}( --simulate)?\s*sends/);
  });
});
