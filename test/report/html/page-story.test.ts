// The page tells what can be known: a rehearsal says it was one, in its title and where the
// campaign is described; a campaign whose messages asked for no delivery report is not told to
// wait for some.
import { BARE_PROGRAM } from '../../../src/shared/shell.js';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectPage, type CampaignFacts } from '../../../src/report/html/data.js';
import { renderPage } from '../../../src/report/html/page.js';
import type { TimelineRun } from '../../../src/report/html/timeline.js';

let dir: string;
let report: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sms-send-page-story-'));
  report = join(dir, 'r.csv');
  await writeFile(
    report,
    'row,to,outcome,statusCode,statusDescription,transactionId,messageId,attempts,error\n' +
      '1,4741000001,accepted,0,Accepted,t1,m-1,1,\n' +
      '2,4741000002,accepted,0,Accepted,t2,m-2,1,\n',
  );
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const facts = (over: Partial<CampaignFacts>): CampaignFacts => ({
  id: 'c0ffee0123456789',
  inputs: ['/in/c.csv'],
  createdAt: '2026-11-28T08:00:00.000Z',
  startedAt: '2026-11-28T08:00:00.000Z',
  finishedAt: '2026-11-28T08:01:00.000Z',
  status: 'finished',
  target: 'http://127.0.0.1:8100',
  runs: 1,
  ...over,
});

async function page(campaign: CampaignFacts | undefined): Promise<string> {
  const data = await collectPage(report, campaign ? { campaign } : {});
  return renderPage(data, {
    generatedAt: Date.parse('2026-11-28T09:00:00Z'),
    program: BARE_PROGRAM,
  });
}

const text = (html: string) => html.replace(/<[^>]+>/g, '').replace(/\s+/g, ' ');

/** A report's page as text, with the campaign's facts and timeline if given. */
async function shownPage(file: string, options: Parameters<typeof collectPage>[1] = {}) {
  return text(
    renderPage(await collectPage(file, options), { generatedAt: 0, program: BARE_PROGRAM }),
  );
}

/** A run of a timeline: a minute long from `at`, run as `command`. */
function timelineRun(at: number, command = 'sms-send c.csv'): TimelineRun {
  return {
    startedAt: at,
    sendingFrom: at,
    finishedAt: at + 60_000,
    command,
    target: 'simulator',
    settings: { batchSize: 100, concurrency: 4 },
    step: 100,
    buckets: [],
    pauses: [],
    sent: [],
  };
}

describe('the page says what can be known', () => {
  it('a rehearsal says so in its title and its status', async () => {
    const shown = await page(facts({ rehearsal: true }));
    expect(shown).toContain('<title>Campaign c0ffee0123456789, a rehearsal</title>');
    expect(text(shown)).toContain(
      'status finished, a rehearsal: sent to a simulator only, nothing reached a phone',
    );
    const real = await page(facts({}));
    expect(real).toContain('<title>Campaign c0ffee0123456789</title>');
    expect(text(real)).not.toContain('rehearsal');
  });

  it.each([
    [false, /carried no DeliveryReportUrl from its settings, so the gateway reports none/],
    [
      true,
      /No delivery reports in this report so far \(2 accepted\)\. Receive them with sms-send dlr/,
    ],
  ])('with a DeliveryReportUrl %s: says %s', async (deliveryReportUrl, says) => {
    const shown = text(await page(facts({ deliveryReportUrl })));
    expect(shown).toMatch(says);
    expect(shown).not.toMatch(/\byet\b/);
  });
});

describe('the page names what its figures are', () => {
  it('one row needing attention is "One row.", and the costliest list says it lists messages', async () => {
    const one = join(dir, 'one.csv');
    await writeFile(
      one,
      'row,to,outcome,statusCode,statusDescription,transactionId,messageId,attempts,error,segments,encoding\n' +
        '1,4741000001,rejected,102,Bad number,t1,m-1,1,,2,GSM-7\n' +
        '2,4741000002,accepted,0,Accepted,t2,m-2,1,,3,GSM-7\n',
    );
    const shown = await shownPage(one);
    expect(shown).toContain('Rows that need attention One row.');
    expect(shown).not.toContain('All 1');
    expect(shown).toContain('Costliest messages The messages that cost the most, one row each');
    expect(shown).not.toContain('per recipient');
  });
});

describe('the page counts a campaign of two runs as its table of runs does', () => {
  it('"started sending" is the first run\'s, not the newest run\'s', async () => {
    const first = Date.parse('2026-11-28T08:00:00Z');
    const second = Date.parse('2026-11-28T10:30:00Z');
    const shown = await shownPage(report, {
      campaign: facts({ startedAt: '2026-11-28T10:30:00.000Z', runs: 2 }),
      timeline: { v: 3, runs: [timelineRun(first), timelineRun(second)] },
    });
    expect(shown).toContain('started sending 2026-11-28 08:00:00 UTC');
  });
});

describe('a number in the command line', () => {
  it('is masked whole, though it is written in groups the line breaks between', async () => {
    const at = Date.parse('2026-11-28T08:00:00Z');
    const shown = await shownPage(report, {
      campaign: facts({}),
      timeline: { v: 3, runs: [timelineRun(at, 'sms-send c.csv --text Call +47 22 33 44 55')] },
    });
    expect(shown).toContain('command sms-send c.csv --text Call +47••••••55');
    expect(shown).not.toContain('22 33 44');
  });
});

describe('one masking rule, the StatusCode table included', () => {
  it('a short recipient in a gateway description is masked in the table as in its row', async () => {
    const short = join(dir, 'short.csv');
    await writeFile(
      short,
      'row,to,outcome,statusCode,statusDescription,transactionId,messageId,attempts,error\n' +
        '1,45123,rejected,102,Destination 45123 unknown,t1,m-1,1,\n',
    );
    const shown = await shownPage(short);
    expect(shown).not.toContain('45123');
    expect(shown).toContain('102 Destination •••23 unknown 1');
  });
});
