// The page's figures: the counts are report --json's own, the rest added up in the same pass;
// recipients masked, attention rows capped, delivery times from the timeline, texts escaped.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runReport } from '../../../src/cli/commands/report.js';
import { recordTimeline } from '../../../src/report/html/recorder.js';
import { maskUserInfo } from '../../../src/shared/url.js';
import { summarizeReport } from '../../../src/report/read.js';
import { collectPage } from '../../../src/report/html/data.js';
import { renderPage } from '../../../src/report/html/page.js';
import { BARE_PROGRAM } from '../../../src/shared/shell.js';
import {
  bucketLabel,
  deliveryTimes,
  hasMilliseconds,
  percentile,
  timeToDelivery,
} from '../../../src/report/html/delivery-times.js';
import { maskNumbers, maskRecipient, maskRecipientIn } from '../../../src/report/html/mask.js';
import { escapeHtml, html, plain } from '../../../src/report/html/escape.js';
import type { PauseTuple } from '../../../src/report/html/timeline.js';
import { mergePauses } from '../../../src/report/html/sending.js';
import { SendEmitter } from '../../../src/send/events.js';
import { writeFixture } from './fixture.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sms-send-page-data-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('collectPage', () => {
  it('counts exactly what summarizeReport (report --json) counts, and the funnel from the same rows', async () => {
    const fixture = await writeFixture(dir, process.env.SMS_SEND_STATE_DIR!, false);
    const page = await collectPage(fixture.report);
    expect(page.counts).toEqual(await summarizeReport(fixture.report));
    expect(page.counts.suppressed).toBe(2);
    expect(page.funnel).toEqual({
      sent: 48,
      accepted: 40,
      delivered: 30,
      undelivered: 4,
      expired: 4,
      pending: 0,
      awaiting: 2,
    });
    expect(page.byCountry.map((c) => [c.code, c.rejected, c.failed, c.unknown])).toEqual([
      ['46', 6, 0, 0],
      ['45', 0, 3, 0],
      ['47', 0, 0, 2],
    ]);
    // The four skipped rows (suppressed, --limit) were never to be sent: no messages of theirs.
    expect(page.segments.byEncoding).toEqual({
      'GSM-7': { messages: 41, segments: 41, acceptedSegments: 30 },
      'UCS-2': { messages: 10, segments: 30, acceptedSegments: 30 },
    });
    expect(page.costliest[0]).toEqual({ row: 1, to: '47••••••00', segments: 3, encoding: 'UCS-2' });
  });

  it('prices the accepted segments by calling code when a price per segment is given', async () => {
    const fixture = await writeFixture(dir, process.env.SMS_SEND_STATE_DIR!, false);
    const page = await collectPage(fixture.report, {
      pricePerSegment: { '47': 0.1, default: 1 },
      currency: 'NOK',
    });
    expect(page.segments).toMatchObject({ cost: 6, currency: 'NOK' });
    expect(page.costliest[0]?.cost).toBe(0.3);
  });

  it('lists the lowest 1,000 rows that need attention, in row order, and counts the rest', async () => {
    const file = join(dir, 'many.ndjson');
    const lines: string[] = [];
    // A report is written as answers come: here the last rows first.
    for (let i = 4500; i >= 1; i--) {
      lines.push(
        JSON.stringify({
          row: i,
          to: '4741234567',
          outcome: i % 2 ? 'failed' : 'accepted',
          error: 'refused',
          deliveryStatus: i % 2 ? undefined : 'UNDELIV',
        }),
      );
    }
    await writeFile(file, `${lines.join('\n')}\n`);
    const page = await collectPage(file);
    expect(page.attention.total).toBe(4500);
    expect(page.attention.rows.map((r) => r.row)).toEqual(
      Array.from({ length: 1000 }, (_, i) => i + 1),
    );
    expect(page.attention.rows[1]).toEqual({
      row: 2,
      to: '47••••••67',
      outcome: 'accepted',
      statusCode: '',
      description: 'refused',
      deliveryStatus: 'UNDELIV',
    });
  });
});

describe('the costliest messages', () => {
  it('are ranked by cost when priced, then segments, then row', async () => {
    const file = join(dir, 'costly.ndjson');
    const row = (n: number, to: string, segments: number) =>
      JSON.stringify({
        row: n,
        to,
        outcome: 'accepted',
        statusCode: 0,
        segments,
        encoding: 'GSM-7',
      });
    await writeFile(
      file,
      [row(1, '4741000001', 3), row(2, '4670000002', 3), row(3, '4741000003', 2)].join('\n') + '\n',
    );
    const page = await collectPage(file, { pricePerSegment: { '47': 0.35, default: 0.5 } });
    expect(page.costliest.map((c) => [c.row, c.cost])).toEqual([
      [2, 1.5],
      [1, 1.05],
      [3, 0.7],
    ]);
  });
});

describe('the segments by encoding', () => {
  // Each row one GSM-7 segment; the table counts the messages that were to be sent.
  it.each([
    ['accepted', '', true],
    ['rejected', '', true],
    ['failed', '', true],
    ['unknown', '', true],
    ['failed', 'not sent: the run stopped (breaker)', true],
    ['skipped', 'not sent: the send window closed; --resume sends it', true],
    ['invalid', 'c.csv:2: phone: "12ab" not a phone number', false],
    ['skipped', 'suppressed (stop.txt)', false],
    ['skipped', 'duplicate of row 1', false],
  ])('a row %s (%s) is counted: %s', async (outcome, error, counted) => {
    const file = join(dir, `segments-${outcome}-${error.length}.ndjson`);
    const rows = [
      { row: 1, to: '4741000001', outcome: 'accepted', statusCode: 0 },
      { row: 2, to: '4741000002', outcome, ...(error ? { error } : {}) },
    ].map((r) => JSON.stringify({ ...r, segments: 1, encoding: 'GSM-7' }));
    await writeFile(file, rows.join('\n') + '\n');
    const page = await collectPage(file);
    const to = counted ? 2 : 1;
    expect(page.segments.byEncoding).toEqual({
      'GSM-7': { messages: to, segments: to, acceptedSegments: outcome === 'accepted' ? 2 : 1 },
    });
  });
});

describe('a report with no message to send', () => {
  it('says so, rather than that it has no segments column', async () => {
    const file = join(dir, 'none-to-send.ndjson');
    const rows = [
      {
        row: 1,
        to: '12ab',
        outcome: 'invalid',
        error: 'c.csv:2: phone: "12ab" not a phone number',
      },
      { row: 2, to: '4741000002', outcome: 'skipped', error: 'suppressed (stop.txt)' },
    ].map((r) => JSON.stringify({ ...r, segments: 1, encoding: 'GSM-7' }));
    await writeFile(file, rows.join('\n') + '\n');
    const page = await collectPage(file);
    expect(page.segments.byEncoding).toEqual({});
    expect(page.segments.noneToSend).toBe(true);
    const shown = renderPage(page, { generatedAt: 0, program: BARE_PROGRAM });
    expect(/<section id="segments">([\s\S]*?)<\/section>/.exec(shown)![1]).toContain(
      'No message was to be sent: every record was invalid or left out on purpose.',
    );
    const bare = join(dir, 'no-segments.ndjson');
    await writeFile(bare, JSON.stringify({ row: 1, to: '4741000001', outcome: 'accepted' }) + '\n');
    expect((await collectPage(bare)).segments.noneToSend).toBeUndefined();
  });
});

describe('pauses on the page', () => {
  /** A run from 0 to `finishedAt` that took `pauses`. */
  const pausedRun = (finishedAt: number, pauses: PauseTuple[]) => ({
    startedAt: 0,
    sendingFrom: 0,
    finishedAt,
    command: '',
    target: '',
    settings: { batchSize: 1, concurrency: 1 },
    step: 1000,
    buckets: [],
    sent: [],
    pauses,
  });

  it('merge when they overlap, each kind apart, and say why they were taken', () => {
    const run = pausedRun(100_000, [
      ['retry wait', 1000, 3000, 'HTTP 503'],
      ['retry wait', 2000, 4000, 'HTTP 503'],
      ['retry wait', 2500, 3500, 'connection refused'],
      ['window', 10_000, 20_000],
      ['retry wait', 50_000, 51_000, 'HTTP 429'],
    ]);
    expect(mergePauses({ v: 3, runs: [run] }).map((s) => [s.label, s.from, s.to, s.minor])).toEqual(
      [
        ['a batch waiting to be sent again (HTTP 503 ×2, connection refused)', 1000, 4000, true],
        ['outside the send window', 10_000, 20_000, false],
        ['a batch waiting to be sent again (HTTP 429)', 50_000, 51_000, true],
      ],
    );
  });

  // The trial's reproduction: an interrupted run's 1 s waits ran past its end and were counted whole.
  it('end when their run ends: an interrupted run waits no longer than it ran', () => {
    const run = pausedRun(10_000, [
      ['retry wait', 9_500, 10_500, 'HTTP 503'],
      ['retry wait', 10_200, 11_200, 'HTTP 503'],
    ]);
    expect(mergePauses({ v: 3, runs: [run] }).map((s) => [s.from, s.to])).toEqual([
      [9_500, 10_000],
    ]);
  });
});

describe('small pieces', () => {
  it.each([
    ['4741234567', '47••••••67'],
    ['12025550123', '1••••••••23'],
    ['4915112345678', '49•••••••••78'],
    ['123', '•••'],
    ['not-a-number', '••••••••••er'],
    ['+4712345656', '+47••••••56'],
    ['+47 800 53 415', '+47••••••15'],
    ['0047-80053415', '47••••••15'],
    ['4799', '••••'],
    // Too short to show the calling code and still hide enough: the last two only.
    ['35812', '•••12'],
    ['+35812', '••••12'],
    ['+358123', '•••••23'],
    ['+4712345', '••••••45'],
  ])('masks %s as %s', (to, masked) => {
    expect(maskRecipient(to)).toBe(masked);
  });

  // One rule: the recipient cell and the row's description show a recipient the same way.
  it.each([
    ['+4712345656', 'to: "+4712345656" is not a valid number'],
    ['+47 80053415', 'to: "+47 80053415" is not a valid number'],
    ['4799', 'to: "4799" is too short to be a number'],
    ['abc-123', 'to: "abc-123" is not a phone number'],
  ])('masks %s in its cell and its description alike', (to, description) => {
    const masked = maskRecipientIn(description, to);
    expect(masked).toContain(`"${maskRecipient(to)}"`);
    expect(masked).not.toContain(to);
  });

  it('leaves a description alone where a recipient of one or two characters would match anything', () => {
    expect(maskRecipientIn('row 12 failed', '12')).toBe('row 12 failed');
  });

  it.each([
    [[], 50, undefined],
    [[5], 99, 5],
    [[1, 2, 3, 4], 50, 2],
    [[1, 2, 3, 4], 90, 4],
    [[...Array(100).keys()], 99, 98],
  ])('percentile of %j at %s is %s (nearest rank)', (values, p, expected) => {
    expect(percentile(values, p)).toBe(expected);
  });

  it('delivery times: deliveredAt less the time the row was answered, by range, newest run first', () => {
    const times = deliveryTimes(
      [1, 2_000, 2, 70_000, 9, 5_000],
      {
        v: 3,
        runs: [
          {
            startedAt: 0,
            sendingFrom: 0,
            finishedAt: 1,
            command: '',
            target: '',
            settings: { batchSize: 1, concurrency: 1 },
            step: 1000,
            buckets: [],
            pauses: [],
            sent: [[1, 2, 1_000]],
          },
        ],
      },
      1,
    );
    expect(times).toMatchObject({
      measured: 2,
      unmeasured: 1,
      resolution: 1,
      p50: 1_000,
      p90: 69_000,
      p99: 69_000,
    });
    expect(times.histogram).toEqual([
      { label: '< 1 s', count: 0 },
      { label: '1–2 s', count: 1 },
      { label: '2–5 s', count: 0 },
      { label: '5–10 s', count: 0 },
      { label: '10–30 s', count: 0 },
      { label: '30 s–1 min', count: 0 },
      { label: '1–5 min', count: 1 },
    ]);
  });

  it('shows the first six buckets however short the times: one bar alone says nothing', () => {
    const timeline = {
      v: 3 as const,
      runs: [
        {
          startedAt: 0,
          sendingFrom: 0,
          finishedAt: 1,
          command: '',
          target: '',
          settings: { batchSize: 1, concurrency: 1 },
          step: 100,
          buckets: [],
          pauses: [],
          sent: [[1, 1, 40_700] as [number, number, number]],
        },
      ],
    };
    const times = deliveryTimes([1, 41_000], timeline, 1000);
    expect(times.p50).toBe(1000);
    expect(times.histogram.map((b) => b.count)).toEqual([0, 1, 0, 0, 0, 0]);
    expect(times.histogram.map((b) => b.label)).toEqual([
      '< 1 s',
      '1 s',
      '2–4 s',
      '5–9 s',
      '10–29 s',
      '30–59 s',
    ]);
  });

  // Sent at .700 of a second, delivered 500 ms later, in the next second: to the second, 1 s.
  it.each([
    [40_700, 41_000, 1000, 1000],
    [40_700, 41_200, 1, 500],
    [40_100, 40_000, 1000, 0],
    [40_000, 42_000, 1000, 3000],
    [45_000, 41_000, 1, 0],
  ])('sent at %s, delivered at %s, to %s ms: %s ms', (sent, delivered, resolution, expected) => {
    expect(timeToDelivery(sent, delivered, resolution)).toBe(expected);
  });

  it.each([
    ['2026-11-27T15:13:41Z', false],
    ['2026-11-27T15:13:41.250Z', true],
    ['2026-11-27 15:13:41,5', true],
    ['20261127151341', false],
  ])('deliveredAt %s tells milliseconds: %s', (at, expected) => {
    expect(hasMilliseconds(at)).toBe(expected);
  });

  it('labels the histogram by what can be told: whole seconds, or spans', () => {
    const toTheSecond = Array.from({ length: 12 }, (_, i) => bucketLabel(i, 1000));
    expect(toTheSecond).toEqual([
      '< 1 s',
      '1 s',
      '2–4 s',
      '5–9 s',
      '10–29 s',
      '30–59 s',
      '1–5 min',
      '5–15 min',
      '15 min–1 h',
      '1–6 h',
      '6 h–1 day',
      '≥ 1 day',
    ]);
    expect(bucketLabel(0, 1)).toBe('< 1 s');
    expect(bucketLabel(11, 1)).toBe('≥ 1 day');
  });

  it.each([
    ['to: "+4520000001" not a valid number', 'to: "+45••••••01" not a valid number'],
    ['call 0047 412 34 567 now', 'call 47••••••67 now'],
    ['+47 412-34-567', '+47••••••67'],
    ['4791234567', '47••••••67'],
    ['to: "+4520000001x" not a phone number', 'to: "+45••••••01x" not a phone number'],
    ['ref4791234567', 'ref47••••••67'],
    ['id 0123456789abcdef', 'id 0123456789abcdef'],
    // Dates, times, short numbers, hex IDs and long hashes stay.
    ['at 2026-11-27T15:13:41.250Z, row 123456', 'at 2026-11-27T15:13:41.250Z, row 123456'],
    ['2026-11-27 15:13 UTC', '2026-11-27 15:13 UTC'],
    ['campaign c0ffee0123456789', 'campaign c0ffee0123456789'],
    ['hash 1234567890123456', 'hash 1234567890123456'],
    ['http://127.0.0.1:8099/sms', 'http://127.0.0.1:8099/sms'],
  ])('masks the numbers in %j', (text, masked) => {
    expect(maskNumbers(text)).toBe(masked);
  });

  it.each([
    ['<b>&"\'', '&lt;b&gt;&amp;&quot;&#39;'],
    ['a\uD800b', 'a\uFFFDb'],
    ['\uDC00', '\uFFFD'],
    ['😀', '😀'],
    ['nul\u0000bell\u0007', 'nul\uFFFDbell\uFFFD'],
    ['tab\tnew\nline', 'tab\tnew\nline'],
  ])('escapes %j', (text, escaped) => {
    expect(escapeHtml(text)).toBe(escaped);
    expect(html`<td title="${text}">${text}</td>`.html).toBe(
      `<td title="${escaped}">${escaped}</td>`,
    );
  });

  it.each([
    [
      'call +4741234567 now',
      'call <span class="nb">+47••••••67</span> now',
      'call +47••••••67 now',
    ],
    ['47••••••30', '<span class="nb">47••••••30</span>', '47••••••30'],
    ['••••••••••er', '<span class="nb">••••••••••er</span>', '••••••••••er'],
    [
      'a <b> & +46 70 123 45 67',
      'a &lt;b&gt; &amp; <span class="nb">+46•••••••67</span>',
      'a &lt;b&gt; &amp; +46•••••••67',
    ],
    ['reason 4', 'reason 4', 'reason 4'],
  ])('keeps each masked number in %j on one line, in content only', (text, content, attribute) => {
    expect(html`<td title="${text}">${text}</td>`.html).toBe(
      `<td title="${attribute}">${content}</td>`,
    );
    // In SVG and the document's title a span may not stand: the number is masked, no more.
    expect(plain`<text>${text}</text>`.html).toBe(`<text>${attribute}</text>`);
  });

  it.each([
    ['https://user:secret@gw.example/rest', 'https://***@gw.example/rest'],
    ['http://127.0.0.1:8099', 'http://127.0.0.1:8099'],
    ['simulator', 'simulator'],
  ])('masks credentials in %s', (url, masked) => {
    expect(maskUserInfo(url)).toBe(masked);
  });
});

describe('recordTimeline', () => {
  it('adds up answers and latency per second, pauses and answered rows', () => {
    const events = new SendEmitter();
    let now = Date.UTC(2026, 0, 1, 9, 0, 10);
    const recorder = recordTimeline(
      events,
      { batchSize: 2, concurrency: 1 },
      'sms-send c.csv',
      () => now,
    );
    const record = (row: number, attempts = 1) =>
      events.emit('record', { row, to: '', messageId: '', attempts, outcome: 'accepted' });
    events.emit('batch', {
      batch: 1,
      size: 2,
      attempts: 1,
      latencyMs: 40,
      status: '200',
      verdict: 'results',
    });
    record(1);
    record(2);
    record(3, 0);
    events.emit('retry', { batch: 2, attempt: 1, delayMs: 1000, reason: 'HTTP 503' });
    now += 60_000;
    events.emit('batch', {
      batch: 2,
      size: 2,
      attempts: 2,
      latencyMs: 60,
      status: '200',
      verdict: 'results',
    });
    record(5);
    record(4);
    const run = recorder.run('simulator')!;
    expect(run.target).toBe('simulator');
    expect(run.command).toBe('sms-send c.csv');
    const minute = Date.UTC(2026, 0, 1, 9, 0);
    expect(run.step).toBe(100);
    expect(run.buckets).toEqual([
      [minute + 10_000, 2, 1, 40, 40],
      [minute + 70_000, 2, 1, 60, 60],
    ]);
    expect(run.pauses).toEqual([['retry wait', minute + 10_000, minute + 11_000, 'HTTP 503']]);
    expect(run.sent).toEqual([
      [1, 2, minute + 10_000],
      [4, 4, minute + 70_000],
      [5, 5, minute + 70_000],
    ]);
    expect(run.settings).toEqual({ batchSize: 2, concurrency: 1 });
  });

  it('a long run keeps few buckets: past 2,000 they merge into longer ones, nothing lost', () => {
    const events = new SendEmitter();
    const t0 = Date.UTC(2026, 0, 1, 9, 0, 0);
    let now = t0;
    const recorder = recordTimeline(events, { batchSize: 1, concurrency: 1 }, 'c', () => now);
    // A batch every 3 s for five hours: 6,000 seconds with sending.
    for (let i = 0; i < 6000; i++) {
      now = t0 + i * 3000;
      events.emit('batch', {
        batch: i + 1,
        size: 1,
        attempts: 1,
        latencyMs: i % 7,
        status: '200',
        verdict: 'results',
      });
    }
    const run = recorder.run('simulator')!;
    expect(run.step).toBe(15_000);
    expect(run.buckets.length).toBeLessThanOrEqual(2000);
    expect(run.buckets.every(([at]) => at % 15_000 === 0)).toBe(true);
    expect(run.buckets.reduce((sum, b) => sum + b[1], 0)).toBe(6000);
    expect(run.buckets.reduce((sum, b) => sum + b[2], 0)).toBe(6000);
    expect(run.buckets.reduce((sum, b) => sum + b[3], 0)).toBe(
      Array.from({ length: 6000 }, (_, i) => i % 7).reduce((a, b) => a + b, 0),
    );
    expect(Math.max(...run.buckets.map((b) => b[4]))).toBe(6);
  });

  it('a run that sent nothing has no record to keep (and so leaves no state)', () => {
    const recorder = recordTimeline(
      new SendEmitter(),
      { batchSize: 2, concurrency: 1 },
      'sms-send c.csv',
    );
    expect(recorder.run('simulator')).toBeUndefined();
  });
});

describe('report CAMPAIGN', () => {
  it("counts the campaign's newest report when given its ID (or a prefix), as for its path", async () => {
    const fixture = await writeFixture(dir, process.env.SMS_SEND_STATE_DIR!, false);
    const printed = async (what: string) => {
      let out = '';
      const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
        out += String(chunk);
        return true;
      });
      try {
        await runReport(what, { json: true });
      } finally {
        write.mockRestore();
      }
      return JSON.parse(out) as { report: { total: number } };
    };
    const byPath = await printed(fixture.report);
    expect(byPath.report.total).toBe(fixture.rows);
    expect((await printed(fixture.id.slice(0, 6))).report).toEqual(byPath.report);
    await expect(printed('nosuchcampaign')).rejects.toThrow(/no campaign "nosuchcampaign"/);
    // A report's name that is no file is a missing report, not a campaign to look for.
    await expect(printed(join(dir, 'none.csv'))).rejects.toThrow(/none\.csv does not exist/);
  });
});
