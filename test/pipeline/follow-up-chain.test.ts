// A follow-up of a follow-up (the reproduction): the original left rows unknown, its
// follow-up re-sent them with --include unknown and some were rejected there. Those rows are
// unknown ones whatever the follow-up answered: `retry <follow-up>` leaves them out unless told
// --include unknown, warns with their count when told, and the page shows each row's latest
// outcome and offers the same two commands with the same counts. Judged by the simulator's ledger.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderUnknownRisk, renderFollowUp } from '../../src/cli/ui/retry.js';
import { Chalk } from 'chalk';
import { writeCampaignCsv } from '../helpers/files.js';
import { campaignsPerTest } from '../helpers/follow-up.js';

const t = campaignsPerTest(3);
const STEADY = ['--batch-size', '4', '--concurrency', '1', '--retries', '0', '--outage-grace', '0'];
const text = (html: string) => html.replace(/<[^>]+>/g, '').replace(/\s+/g, ' ');
const to = (m: Record<string, unknown>) => String(m['DestinationAddress']);

describe('a follow-up of a follow-up', () => {
  it('re-sends a row the original left unknown only with --include unknown, warning with its count', async () => {
    await writeCampaignCsv(join(t.dir, 'campaign.csv'), 80);
    t.sim.setFaults({ errorAfterProcessing: 0.3, rejectMessage: 0.2 });
    const report = join(t.dir, 'campaign.report.csv');
    const original = await t.run(['campaign.csv', ...STEADY, '--report', report]);
    const unknownInOriginal = new Set(
      original.rows.filter((r) => r.outcome === 'unknown').map((r) => r.row),
    );
    expect(unknownInOriginal.size, `${original.code} ${original.error}`).toBeGreaterThan(0);
    const first = await t.run(['retry', original.campaign!, ...STEADY, '--include', 'unknown']);
    const failedHere = first.rows.filter((r) => r.outcome === 'rejected' || r.outcome === 'failed');
    const held = failedHere.filter((r) => unknownInOriginal.has(r.row));
    const clean = failedHere.filter((r) => !unknownInOriginal.has(r.row));
    const leftUnknown = first.rows.filter((r) => r.outcome === 'unknown');
    // The seed gives each kind, so every rule below is exercised.
    expect(held.length).toBeGreaterThan(0);
    expect(clean.length).toBeGreaterThan(0);
    // What reached the gateway so far: none of it may go again without --include unknown.
    const reached = new Set([...original.messages, ...first.messages].map(to));
    for (const row of held) expect(reached.has(row.to!)).toBe(true);

    t.sim.setFaults({});
    const page = await t.page(original.campaign!);
    const plain = await t.run(['retry', first.campaign!, ...STEADY, '--dry-run']);
    const risky = await t.run([
      'retry',
      first.campaign!,
      ...STEADY,
      '--dry-run',
      '--include',
      'unknown',
    ]);
    const unknown = held.length + leftUnknown.length;
    expect(plain.retry?.selection.chosen).toEqual({
      failed: clean.filter((r) => r.outcome === 'failed').length,
      rejected: clean.filter((r) => r.outcome === 'rejected').length,
      unknown: 0,
      undelivered: 0,
    });
    expect(plain.retry?.selection.left.unknown).toBe(unknown);
    expect(risky.retry?.selection.chosen.unknown).toBe(unknown);
    const c = new Chalk({ level: 0 });
    expect(renderFollowUp(plain.retry!, c)).toContain(
      `${unknown} unknown records (here or in campaign ${original.campaign}) left out: the gateway may have them`,
    );
    expect(renderUnknownRisk(risky.retry!, c)).toContain(
      `warning: ${unknown} unknown records (here or in campaign ${original.campaign}) will be re-sent: ` +
        'the gateway may have them already, so they may arrive twice',
    );

    // The page: each row as it stands now, and the same commands with the same counts.
    const rowsShown = new Map(page.data.attention.rows.map((r) => [r.row, r]));
    for (const row of held) {
      expect(rowsShown.get(Number(row.row))).toMatchObject({
        outcome: row.outcome,
        statusCode: row.statusCode,
        via: first.campaign,
      });
    }
    const shown = text(page.html);
    expect(shown).toContain(
      `sms-send retry ${first.campaign} --endpoint ${t.sim.url} sends again the ${clean.length} records`,
    );
    expect(shown).toContain(
      `sms-send retry ${first.campaign} --include unknown --endpoint ${t.sim.url} also the ${unknown} ` +
        'it left unknown or that were unknown before it: the gateway may have sent those already, ' +
        'so they may arrive twice',
    );

    // Sent: exactly the clean rows, and nothing that reached the gateway before.
    const second = await t.run(['retry', first.campaign!, ...STEADY]);
    expect(second.messages.map(to).sort()).toEqual(clean.map((r) => r.to).sort());
    expect(second.messages.filter((m) => reached.has(to(m)))).toEqual([]);
  });
});
