// The page's cost: a send keeps the prices it was run with in the campaign's manifest, the page
// prices the campaign by them, and `report --price-per-segment/--currency` override them.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readManifest } from '../../../src/journal/folder/campaigns.js';
import { startSimulator, type Simulator } from '../../../src/simulator/index.js';
import { tempDir, writeCampaignCsv } from '../../helpers/files.js';
import { runInProcess } from '../../helpers/in-process.js';
import { stateJournal } from '../../helpers/reliability.js';

const CREDENTIALS = { SMS_SEND_USERNAME: 'cost-user', SMS_SEND_PASSWORD: 'cost-pw' };
let dir: Awaited<ReturnType<typeof tempDir>>;
let sim: Simulator;

beforeAll(async () => {
  dir = await tempDir();
  sim = await startSimulator({ seed: 5 });
});
afterAll(async () => {
  await sim.stop();
  await dir.remove();
});

/** The cost the page states, and the sentence saying what it was priced with. */
function pageCost(page: string): { cost: string; priced: string } {
  const cost =
    /Estimated cost of the accepted messages:\s*<strong\s*><span data-n="([\d.]+)"[^>]*>[^<]*<\/span>([^<]*)</.exec(
      page,
    );
  const priced = /<p class="muted">\s*(Priced[^<]*(?:<span[^>]*>[^<]*<\/span>[^<]*)*)/.exec(page);
  return {
    cost: cost ? `${cost[1]}${cost[2]}` : 'none',
    priced: (priced?.[1] ?? 'none')
      .replace(/<[^>]+>/g, '')
      .replace(/\s+/g, ' ')
      .trim(),
  };
}

describe('the cost on the page', () => {
  it('is priced as the campaign was sent, and as report is told to', async () => {
    // 20 Norwegian numbers (+47), one segment each.
    await writeCampaignCsv(join(dir.path, 'c.csv'), 20);
    const prices = ['--price-per-segment', '47=0.35,46=0.4,default=0.5', '--currency', 'NOK'];
    const sent = await runInProcess(
      ['c.csv', '--endpoint', sim.url, '--html', 'sent.html', ...prices],
      { cwd: dir.path, env: CREDENTIALS },
    );
    expect(sent.code).toBe(0);
    const manifest = (await readManifest(join(stateJournal(), '..', 'manifest.json')))!;
    expect(manifest.pricing).toEqual({
      pricePerSegment: { '46': 0.4, '47': 0.35, default: 0.5 },
      currency: 'NOK',
    });
    const asSent = pageCost(await readFile(join(dir.path, 'sent.html'), 'utf8'));
    expect(asSent).toEqual({
      cost: '7 NOK',
      priced:
        'Priced as the campaign was sent: per segment 0.4 NOK to +46, 0.35 NOK to +47, 0.5 NOK to other codes.',
    });

    // report CAMPAIGN --html, with no prices given: the campaign's own.
    const again = await runInProcess(['report', manifest.id, '--html', 'again.html', '--json'], {
      cwd: dir.path,
    });
    expect(again.code).toBe(0);
    expect(pageCost(await readFile(join(dir.path, 'again.html'), 'utf8'))).toEqual(asSent);

    // Given to report, they override it.
    const given = await runInProcess(
      [
        'report',
        manifest.id,
        '--html',
        'given.html',
        '--price-per-segment',
        '0.1',
        '--currency',
        'EUR',
      ],
      { cwd: dir.path },
    );
    expect(given.code).toBe(0);
    expect(pageCost(await readFile(join(dir.path, 'given.html'), 'utf8'))).toEqual({
      cost: '2 EUR',
      priced: 'Priced with the prices given to this report: 0.1 EUR per segment.',
    });
  });

  it('says how to give prices when a report has none', async () => {
    await writeCampaignCsv(join(dir.path, 'free.csv'), 3);
    const sent = await runInProcess(
      ['free.csv', '--endpoint', sim.url, '--html', 'free.html', '--report', 'free.report.csv'],
      { cwd: dir.path, env: CREDENTIALS },
    );
    expect(sent.code).toBe(0);
    const page = await readFile(join(dir.path, 'free.html'), 'utf8');
    expect(pageCost(page).cost).toBe('none');
    const text = page.replace(/<[^>]*>/g, '').replace(/\s+/g, ' ');
    expect(text).toContain(
      '(--price-per-segment and --currency on report, or pricePerSegment in the config file)',
    );
  });

  it('counts the messages that were to be sent, as the dry run does: not invalid or suppressed rows', async () => {
    // Every third record's number is not one, and one recipient opted out; half the texts need UCS-2.
    const lines = ['phone,name'];
    for (let i = 0; i < 30; i++) {
      const phone = i % 3 === 1 ? `12ab${i}` : `+479110${String(i).padStart(4, '0')}`;
      lines.push(`${phone},${i % 2 ? `Łukasz ${i}` : `Plain ${i}`}`);
    }
    await writeFile(join(dir.path, 'mixed.csv'), `${lines.join('\n')}\n`);
    await writeFile(join(dir.path, 'stop.txt'), '+4791100000\n');
    const args = ['mixed.csv', '--simulate', '--text', 'Hi {{name}}', '--suppress', 'stop.txt'];
    const dry = await runInProcess([...args, '--dry-run', '--json'], { cwd: dir.path });
    const { plan } = JSON.parse(dry.stdout) as {
      plan: {
        valid: number;
        invalid: number;
        messagesByEncoding: Record<string, number>;
        segmentsByEncoding: Record<string, number>;
      };
    };
    expect([plan.valid, plan.invalid]).toEqual([19, 10]);
    const sent = await runInProcess([...args, '--skip-invalid', '--html', 'mixed.html'], {
      cwd: dir.path,
    });
    expect(sent.stdout).toContain('19 of 19 messages accepted');
    const page = await readFile(join(dir.path, 'mixed.html'), 'utf8');
    const section = /<section id="segments">([\s\S]*?)<\/tbody>/.exec(page)![1]!;
    const shown: Record<string, [number, number]> = {};
    for (const [, encoding, messages, segments] of section.matchAll(
      /<td>([^<]+)<\/td>\s*<td class="n"><span data-n="(\d+)"[^>]*>[^<]*<\/span><\/td>\s*<td class="n"><span data-n="(\d+)"/g,
    )) {
      shown[encoding!] = [Number(messages), Number(segments)];
    }
    expect(shown).toEqual(
      Object.fromEntries(
        Object.keys(plan.messagesByEncoding).map((e) => [
          e,
          [plan.messagesByEncoding[e], plan.segmentsByEncoding[e]],
        ]),
      ),
    );
  });
});
