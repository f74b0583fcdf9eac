// Renderers return strings: pinned here with colour off (level 0) and on (level 1, escapes made visible).
import { Chalk, type ChalkInstance } from 'chalk';
import { describe, expect, it } from 'vitest';
import { renderCampaign, renderCampaignList } from '../../../src/cli/ui/campaigns.js';
import { renderCheck } from '../../../src/cli/ui/check.js';
import {
  renderApply,
  renderReceiverStart,
  renderReceiverLine,
  renderReceiverSummary,
  renderReportCounts,
} from '../../../src/cli/ui/dlr.js';
import { renderPlan } from '../../../src/cli/ui/plan.js';
import {
  invalidMessage as renderInvalid,
  overMaxCostMessage as renderOverMaxCost,
} from '../../../src/campaign/refusal.js';
import { renderSimulatorBanner, renderSimulatorStopped } from '../../../src/cli/ui/simulate.js';
import { renderQuietLine, renderSummary } from '../../../src/cli/ui/summary.js';
import type { FoldResult, LogCounts } from '../../../src/dlr/apply.js';
import type { ReceiverCounts } from '../../../src/dlr/receiver.js';
import type { CampaignEntry } from '../../../src/journal/store.js';
import type { Manifest } from '../../../src/journal/manifest.js';
import type { Plan } from '../../../src/validate/plan.js';
import type { ReportCounts } from '../../../src/report/read.js';
import type { RunSummary } from '../../../src/report/summary.js';

const plain = new Chalk({ level: 0 });
const colour = new Chalk({ level: 1 });

/** ANSI escapes as <n> so a coloured snapshot stays readable text. */
function visible(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\x1b\[(\d+(?:;\d+)*)m/g, '<$1>');
}

function both(render: (c: ChalkInstance) => string): { plain: string; colour: string } {
  const flat = render(plain);
  expect(flat).not.toContain('\x1b');
  return { plain: flat, colour: visible(render(colour)) };
}

const summary: RunSummary = {
  total: 12_345,
  byOutcome: { accepted: 12_000, rejected: 300, invalid: 40, failed: 0, unknown: 5, skipped: 0 },
  byStatusCode: {
    '0': { count: 12_000, description: 'Accepted' },
    '105': { count: 300, description: 'Premium needs a short-number gateway' },
  },
  startedAt: Date.UTC(2025, 5, 1, 12, 0, 0),
  finishedAt: Date.UTC(2025, 5, 1, 12, 1, 5),
  durationMs: 65_000,
  messagesPerSecond: 189.2,
  reportPath: 'campaign.report.csv',
  exitCode: 1,
};

const plan: Plan = {
  records: 1200,
  valid: 1190,
  invalid: 7,
  skipped: 5,
  suppressed: 2,
  suppressedByList: { 'optouts.csv': 2 },
  sentBy: {},
  alreadySent: {},
  fileProblems: [],
  warnings: [],
  malformed: 0,
  malformedRows: [],
  invalidRecords: [
    {
      row: 7,
      file: 'campaign.csv',
      line: 8,
      problems: [{ field: 'Price', reason: 'Price 100 needs a short-number gateway' }],
    },
  ],
  invalidByField: { Price: 1, DestinationAddress: 6 },
  batches: 12,
  batchSize: 100,
  segments: 1500,
  segmentsByEncoding: { 'GSM-7': 1300, 'UCS-2': 200 },
  messagesByEncoding: { 'GSM-7': 1100, 'UCS-2': 90 },
  ucs2Chars: [
    {
      char: '"ж" (U+0436)',
      codePoint: 'U+0436',
      messages: 80,
      rows: [4, 5, 6, 9, 10].map((row) => ({
        row,
        file: 'campaign.csv',
        line: row + 1,
        field: 'text',
      })),
      segments: 180,
      segmentsWithout: 170,
    },
    {
      char: '"🎉" (U+1F389)',
      codePoint: 'U+1F389',
      messages: 10,
      rows: [{ row: 12, file: 'campaign.csv', line: 13, field: 'name' }],
      segments: 20,
      segmentsWithout: 10,
    },
  ],
  ucs2CharCount: 2,
  premiumTotal: 550,
  premiumMessages: 2,
  samples: [
    { row: 1, to: '4741234567', text: 'Hei Kari, pakken din er klar.' },
    { row: 2, to: '4741234568', text: 'Hei Ola,\npakken din er klar.' },
    { row: 4, to: '4741234569', text: `Привет ${'ж'.repeat(120)}` },
  ],
  repeats: 4,
};

const reportCounts: ReportCounts = {
  path: 'campaign.report.csv',
  format: 'csv',
  total: 1005,
  byOutcome: { accepted: 1000, rejected: 3, invalid: 0, failed: 1, unknown: 1, skipped: 0 },
  suppressed: 0,
  sentBefore: 0,
  byStatusCode: {
    '0': { count: 1000, description: 'Accepted' },
    '101': { count: 3, description: 'Invalid DestinationAddress' },
  },
  byDeliveryStatus: { DELIVRD: 990, EXPIRED: 4, UNDELIV: 4 },
  delivered: 990,
  awaitingDeliveryReport: 2,
  otherOutcome: 1,
  unreadable: 2,
};

const receiverCounts: ReceiverCounts = {
  received: 1002,
  byStatus: { DELIVRD: 990, EXPIRED: 10 },
  withoutStatus: 2,
  malformed: 3,
  refused: { unsigned: 4, 'bad signature': 2, 'unknown id': 0, 'bad status': 0 },
  notLogged: 0,
};

const updated: Extract<FoldResult, { kind: 'updated' }> = {
  kind: 'updated',
  rows: 1005,
  changedRows: 998,
  written: true,
  matched: 998,
  unmatched: 2,
  unmatchedSample: ['other-1', 'other-2'],
  confirmed: 0,
  confirmedRows: [],
  identity: 'x',
};

function manifest(overrides: Partial<Manifest>): Manifest {
  return {
    v: 1,
    id: 'c-3f2a9b',
    named: false,
    contentHash: 'h',
    inputs: [{ path: '/data/campaign.csv', sha256: 'ab'.repeat(32), bytes: 123_456 }],
    target: 'simulator',
    reports: ['/data/campaign.report.csv'],
    createdAt: '2025-06-01T12:00:00.000Z',
    startedAt: '2025-06-01T12:00:00.000Z',
    updatedAt: '2025-06-01T12:01:00.000Z',
    finishedAt: '2025-06-01T12:01:00.000Z',
    status: 'finished',
    runs: 1,
    records: 1200,
    counts: { accepted: 1190, rejected: 3, invalid: 7, failed: 0, unknown: 0, skipped: 0 },
    ...overrides,
  };
}

const campaigns: CampaignEntry[] = [
  {
    manifest: manifest({}),
    status: 'finished',
    counts: manifest({}).counts,
    where: '/state/campaigns/c-3f2a9b',
  },
  {
    manifest: manifest({
      id: 'tonight-2025-06-02',
      named: true,
      startedAt: '2025-06-02T21:00:00.000Z',
      createdAt: '2025-06-02T20:00:00.000Z',
      finishedAt: undefined,
      runs: 2,
      records: 5,
      counts: { accepted: 2, rejected: 0, invalid: 0, failed: 0, unknown: 3, skipped: 0 },
      reports: [],
      reason: 'gateway unreachable',
    }),
    status: 'interrupted',
    // From the journal: the manifest's counts are those written as the run started.
    counts: { accepted: 2, rejected: 0, invalid: 0, failed: 0, unknown: 3, skipped: 0 },
    where: '/state/campaigns/tonight-2025-06-02',
  },
];

describe('renderSummary', () => {
  it('lists outcomes, StatusCodes, time and report', () => {
    expect(both((c) => renderSummary(summary, { simulated: true, campaign: 'c-1' }, c)))
      .toMatchInlineSnapshot(`
        {
          "colour": "<33><1>! 12,000 of 12,305 messages accepted<22><39>
          <32>accepted <39> 12,000
          <31>rejected <39>    300
          <33>invalid  <39>     40
          <35>unknown  <39>      5
        <1>  by StatusCode<22>
               0  12,000  <2>Accepted<22>
             105     300  <2>Premium needs a short-number gateway<22>
          <2>time<22>      1 min 5 s, 189 msg/s
          <2>report<22>    campaign.report.csv
          <2>campaign<22>  c-1
        <36>  Simulated run: the built-in simulator answered; nothing reached a real phone.<39>",
          "plain": "! 12,000 of 12,305 messages accepted
          accepted  12,000
          rejected     300
          invalid       40
          unknown        5
          by StatusCode
               0  12,000  Accepted
             105     300  Premium needs a short-number gateway
          time      1 min 5 s, 189 msg/s
          report    campaign.report.csv
          campaign  c-1
          Simulated run: the built-in simulator answered; nothing reached a real phone.",
        }
      `);
  });

  it('says how many of the skipped were suppressed', () => {
    const suppressed: RunSummary = {
      ...summary,
      byOutcome: { ...summary.byOutcome, skipped: 4 },
      suppressed: 3,
    };
    const lines = renderSummary(suppressed, { simulated: false }, plain).split('\n');
    expect(lines.slice(5, 7)).toEqual(['  skipped        4', '  (3 of the skipped: suppressed)']);
    expect(renderSummary(summary, { simulated: false }, plain)).not.toContain('suppressed');
  });

  it('says when everything was accepted, and what a resume skipped', () => {
    const clean: RunSummary = {
      ...summary,
      total: 3,
      byOutcome: { accepted: 3, rejected: 0, invalid: 0, failed: 0, unknown: 0, skipped: 0 },
      byStatusCode: { '0': { count: 3, description: 'Accepted' } },
      exitCode: 0,
    };
    expect(
      both((c) =>
        renderSummary(
          clean,
          {
            simulated: false,
            resumed: { fromJournal: 2, fromReport: 0, inFlight: 1, unposted: 0 },
            previousReport: 'old.report.csv',
            stoppedReason: 'the gateway stopped answering',
          },
          c,
        ),
      ),
    ).toMatchInlineSnapshot(`
      {
        "colour": "<33><1>! 3 of 3 messages accepted<22><39>
        <32>accepted <39> 3
      <1>  by StatusCode<22>
             0  3  <2>Accepted<22>
        <2>time<22>      1 min 5 s, 189 msg/s
        <2>report<22>    campaign.report.csv
                  (complete: every record of the campaign; the earlier run wrote old.report.csv)
        <2>resumed<22>   2 records settled by earlier runs were not sent again; 1 sent without an answer is unknown
      <31>  stopped early: the gateway stopped answering<39>",
        "plain": "! 3 of 3 messages accepted
        accepted  3
        by StatusCode
             0  3  Accepted
        time      1 min 5 s, 189 msg/s
        report    campaign.report.csv
                  (complete: every record of the campaign; the earlier run wrote old.report.csv)
        resumed   2 records settled by earlier runs were not sent again; 1 sent without an answer is unknown
        stopped early: the gateway stopped answering",
      }
    `);
  });
});

describe('renderSummary wording', () => {
  it('says "message" for one, with separators for many', () => {
    const one: RunSummary = {
      ...summary,
      total: 1,
      byOutcome: { accepted: 1, rejected: 0, invalid: 0, failed: 0, unknown: 0, skipped: 0 },
      byStatusCode: {},
      exitCode: 0,
    };
    const headline = (s: RunSummary) =>
      renderSummary(s, { simulated: false }, plain).split('\n')[0];
    expect(headline(one)).toBe('✔ 1 of 1 message accepted');
    expect(
      renderSummary(
        one,
        { simulated: false, resumed: { fromJournal: 1, fromReport: 0, inFlight: 0, unposted: 0 } },
        plain,
      ),
    ).toContain('resumed   1 record settled by earlier runs was not sent again');
    // 40 of the 12,345 records are invalid: never messages, so not counted as messages.
    expect(headline(summary)).toBe('! 12,000 of 12,305 messages accepted');
    // 3 skipped by a suppression list or --limit, 2 left unsent by a Ctrl-C: those 2 are messages.
    const skipped: RunSummary = {
      ...one,
      total: 12,
      suppressed: 1,
      notToSend: 3,
      byOutcome: { accepted: 6, rejected: 0, invalid: 1, failed: 0, unknown: 0, skipped: 5 },
    };
    expect(headline(skipped)).toBe('✔ 6 of 8 messages accepted');
  });
});

describe('renderQuietLine', () => {
  it('puts the problems first, then accepted, the total and the report', () => {
    expect(renderQuietLine(summary)).toMatchInlineSnapshot(
      `"300 rejected, 40 invalid, 5 unknown, 12,000 accepted of 12,345; report campaign.report.csv"`,
    );
    const unknown: RunSummary = {
      ...summary,
      total: 3000,
      byOutcome: { accepted: 2700, rejected: 0, invalid: 0, failed: 0, unknown: 300, skipped: 0 },
      reportPath: 'reports/x.csv',
    };
    expect(renderQuietLine(unknown)).toBe(
      '300 unknown, 2,700 accepted of 3,000; report reports/x.csv',
    );
  });
});

describe('renderPlan', () => {
  it('counts records, batches, segments, UCS-2 characters and premium', () => {
    expect(both((c) => renderPlan(plan, c))).toMatchInlineSnapshot(`
      {
        "colour": "<1>Plan (dry run: nothing sent)<22>
        records     1,200
        to send     1,190
        invalid     <33>7<39>
        skipped     3 (--limit/--dedupe)
        suppressed  2 (optouts.csv 2)
        batches     12 (up to 100 messages each)
        segments    1,500
          GSM-7   1,100 messages, 1,300 segments
          UCS-2   90 messages, 200 segments
        UCS-2 forced by 2 characters:
          "ж" (U+0436) in 80 records: 180 segments, 170 segments without it
            campaign.csv:5 (text), campaign.csv:6 (text), campaign.csv:7 (text), …
          "🎉" (U+1F389) in 10 records: 20 segments, 10 segments without it
            campaign.csv:13 (name), …
        premium     2 messages, 550 øre in total
        repeats     <33>4 records<39> repeat an earlier recipient and text; --dedupe skips them
        first 3 texts
          <2>4741234567<22>  Hei Kari, pakken din er klar.
          <2>4741234568<22>  Hei Ola, ⏎ pakken din er klar.
          <2>4741234569<22>  Привет жжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжж…",
        "plain": "Plan (dry run: nothing sent)
        records     1,200
        to send     1,190
        invalid     7
        skipped     3 (--limit/--dedupe)
        suppressed  2 (optouts.csv 2)
        batches     12 (up to 100 messages each)
        segments    1,500
          GSM-7   1,100 messages, 1,300 segments
          UCS-2   90 messages, 200 segments
        UCS-2 forced by 2 characters:
          "ж" (U+0436) in 80 records: 180 segments, 170 segments without it
            campaign.csv:5 (text), campaign.csv:6 (text), campaign.csv:7 (text), …
          "🎉" (U+1F389) in 10 records: 20 segments, 10 segments without it
            campaign.csv:13 (name), …
        premium     2 messages, 550 øre in total
        repeats     4 records repeat an earlier recipient and text; --dedupe skips them
        first 3 texts
          4741234567  Hei Kari, pakken din er klar.
          4741234568  Hei Ola, ⏎ pakken din er klar.
          4741234569  Привет жжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжжж…",
      }
    `);
  });

  it('prices each character, and says what --gsm-normalize would save', () => {
    const priced: Plan = {
      ...plan,
      ucs2Chars: [
        {
          char: '"’" (U+2019)',
          codePoint: 'U+2019',
          messages: 2,
          rows: [1, 2].map((row) => ({ row, file: 'c.csv', line: row + 1, field: 'template' })),
          segments: 4,
          segmentsWithout: 2,
          replacement: "'",
          cost: 1.4,
          costWithout: 0.7,
        },
        ...[
          ['U+00A0', ' '],
          ['U+2028', '\n'],
          ['U+200B', ''],
        ].map(([codePoint, replacement]) => ({
          char: codePoint!,
          codePoint: codePoint!,
          messages: 1,
          rows: [{ row: 3, file: 'c.csv', line: 4, field: 'text' }],
          segments: 2,
          segmentsWithout: 1,
          replacement,
          cost: 0.7,
          costWithout: 0.35,
        })),
      ],
      ucs2CharCount: 14,
      normalizable: { messages: 3, characters: 5, segmentsSaved: 3, costSaved: 1.05 },
      cost: {
        currency: 'NOK',
        total: 525.35,
        byCallingCode: [
          { callingCode: '47', messages: 1100, segments: 1400, pricePerSegment: 0.35, cost: 490 },
          { callingCode: '358', messages: 90, segments: 100, pricePerSegment: 0.3535, cost: 35.35 },
        ],
        maxCost: 500,
      },
      samples: [],
      repeats: 0,
      premiumMessages: 0,
    };
    expect(both((c) => renderPlan(priced, c))).toMatchInlineSnapshot(`
      {
        "colour": "<1>Plan (dry run: nothing sent)<22>
        records     1,200
        to send     1,190
        invalid     <33>7<39>
        skipped     3 (--limit/--dedupe)
        suppressed  2 (optouts.csv 2)
        batches     12 (up to 100 messages each)
        segments    1,500
          GSM-7   1,100 messages, 1,300 segments
          UCS-2   90 messages, 200 segments
        UCS-2 forced by 14 characters:
          "’" (U+2019) in 2 records: 4 segments (1.40 NOK), 2 segments (0.70 NOK) with ' instead (--gsm-normalize)
            c.csv:2 (template), c.csv:3 (template)
          U+00A0 in 1 record: 2 segments (0.70 NOK), 1 segment (0.35 NOK) with a space instead (--gsm-normalize)
            c.csv:4 (text)
          U+2028 in 1 record: 2 segments (0.70 NOK), 1 segment (0.35 NOK) with a line break instead (--gsm-normalize)
            c.csv:4 (text)
          U+200B in 1 record: 2 segments (0.70 NOK), 1 segment (0.35 NOK) without it (--gsm-normalize)
            c.csv:4 (text)
          … and 10 more characters
        <33>--gsm-normalize would send 3 records as GSM-7 (5 characters replaced): 3 segments fewer (1.05 NOK)<39>
        cost        525.35 NOK estimated<31>, more than --max-cost 500.00 NOK<39>
          +47     1,100 messages  1,400 segments    × 0.35  490.00 NOK
          +358       90 messages    100 segments  × 0.3535   35.35 NOK",
        "plain": "Plan (dry run: nothing sent)
        records     1,200
        to send     1,190
        invalid     7
        skipped     3 (--limit/--dedupe)
        suppressed  2 (optouts.csv 2)
        batches     12 (up to 100 messages each)
        segments    1,500
          GSM-7   1,100 messages, 1,300 segments
          UCS-2   90 messages, 200 segments
        UCS-2 forced by 14 characters:
          "’" (U+2019) in 2 records: 4 segments (1.40 NOK), 2 segments (0.70 NOK) with ' instead (--gsm-normalize)
            c.csv:2 (template), c.csv:3 (template)
          U+00A0 in 1 record: 2 segments (0.70 NOK), 1 segment (0.35 NOK) with a space instead (--gsm-normalize)
            c.csv:4 (text)
          U+2028 in 1 record: 2 segments (0.70 NOK), 1 segment (0.35 NOK) with a line break instead (--gsm-normalize)
            c.csv:4 (text)
          U+200B in 1 record: 2 segments (0.70 NOK), 1 segment (0.35 NOK) without it (--gsm-normalize)
            c.csv:4 (text)
          … and 10 more characters
        --gsm-normalize would send 3 records as GSM-7 (5 characters replaced): 3 segments fewer (1.05 NOK)
        cost        525.35 NOK estimated, more than --max-cost 500.00 NOK
          +47     1,100 messages  1,400 segments    × 0.35  490.00 NOK
          +358       90 messages    100 segments  × 0.3535   35.35 NOK",
      }
    `);
    const within = { ...priced, cost: { ...priced.cost!, maxCost: 600 } };
    expect(renderPlan(within, plain)).toContain(
      'cost        525.35 NOK estimated, within --max-cost 600.00 NOK',
    );
    expect(renderOverMaxCost(priced)).toMatchInlineSnapshot(`
      "the estimated cost 525.35 NOK (1,500 segments of 1,190 messages) is more than --max-cost 500.00 NOK. Nothing was sent.
      --gsm-normalize would send 3 records as GSM-7 and save 1.05 NOK; --dry-run shows the characters that forced UCS-2."
    `);
  });

  it('says what --gsm-normalize did, and lists what it could not change without a hint', () => {
    const normalized: Plan = {
      ...plan,
      ucs2Chars: [
        {
          char: '"’" (U+2019)',
          codePoint: 'U+2019',
          messages: 1,
          rows: [{ row: 7, file: 'c.csv', line: 8, field: 'text' }],
          segments: 2,
          segmentsWithout: 2,
          replacement: "'",
        },
      ],
      ucs2CharCount: 1,
      normalized: { messages: 40, characters: 52, segmentsSaved: 38 },
      samples: [],
      repeats: 0,
    };
    expect(renderPlan(normalized, plain)).toMatchInlineSnapshot(`
      "Plan (dry run: nothing sent)
        records     1,200
        to send     1,190
        invalid     7
        skipped     3 (--limit/--dedupe)
        suppressed  2 (optouts.csv 2)
        batches     12 (up to 100 messages each)
        segments    1,500
          GSM-7   1,100 messages, 1,300 segments
          UCS-2   90 messages, 200 segments
        UCS-2 forced by 1 character:
          "’" (U+2019) in 1 record: 2 segments, 2 segments with ' instead
            c.csv:8 (text)
        normalized  40 records (52 characters replaced by --gsm-normalize): 38 segments saved
        premium     2 messages, 550 øre in total"
    `);
  });

  it('explains invalid records', () => {
    expect(renderInvalid(plan, true)).toMatchInlineSnapshot(`
      "7 records of 1,200 cannot be sent:
        campaign.csv:8: Price: Price 100 needs a short-number gateway
        … and 6 more records
      by field: DestinationAddress 6, Price 1
      Nothing was sent. Fix the input, or pass --skip-invalid to send the valid records and report the rest as invalid."
    `);
  });
});

describe('the receiver on start', () => {
  const start = {
    url: 'http://127.0.0.1:8098',
    template: 'http://127.0.0.1:8098/dlr?msgid=[$MSGID]',
    healthUrl: 'http://127.0.0.1:8098/healthz',
    logPath: 'shop.report.csv.dlr.ndjson',
    host: '127.0.0.1',
    reportExists: false,
    program: 'sms-send',
  };

  it('gives the flags a send adds, not a command that could not run as pasted', () => {
    const text = renderReceiverStart(
      { ...start, reportPath: 'shop.report.csv', keptIn: undefined },
      plain,
    );
    expect(text).toContain(
      "  on your send, add: --report shop.report.csv --dlr-url 'http://127.0.0.1:8098/dlr?msgid=[$MSGID]'",
    );
    expect(text).not.toContain('campaign.csv');
    expect(text).not.toContain('kept in');
  });

  it('without a report, says where the reports are kept and how a probe asks it', () => {
    const text = renderReceiverStart(
      {
        ...start,
        reportPath: undefined,
        keptIn: 'postgres://sms@db/sms',
        logPath: 'sms-send-dlr.ndjson',
      },
      plain,
    );
    expect(text.split('\n')).toEqual([
      'receiving delivery reports on http://127.0.0.1:8098 (any path; GET query, POST JSON or form)',
      '  kept in postgres://sms@db/sms, for every host to read',
      '  log     sms-send-dlr.ndjson',
      "  on your sends, add: --dlr-url 'http://127.0.0.1:8098/dlr?msgid=[$MSGID]' (with the same state URL)",
      '  only reports carrying the proof sms-send put in their DeliveryReportUrl are taken',
      '  health  GET http://127.0.0.1:8098/healthz answers 200 while it is up',
      '  Ctrl-C stops it (every report acknowledged is kept).',
    ]);
  });
});

describe('dlr and report counts', () => {
  it('renders the report counts', () => {
    expect(both((c) => renderReportCounts(reportCounts, c))).toMatchInlineSnapshot(`
      {
        "colour": "<1>campaign.report.csv: 1,005 rows<22>
        accepted    1,000
        rejected        3
        failed          1
        unknown         1
        other           1  rows with no known outcome
        unreadable      2  lines that are not rows
      <1>  by StatusCode<22>
          0    1,000  <2>Accepted<22>
          101      3  <2>Invalid DestinationAddress<22>
      <1>  by delivery status<22>
          DELIVRD     990
          EXPIRED       4
          UNDELIV       4
          (none yet)    2  <2>accepted, no delivery report<22>",
        "plain": "campaign.report.csv: 1,005 rows
        accepted    1,000
        rejected        3
        failed          1
        unknown         1
        other           1  rows with no known outcome
        unreadable      2  lines that are not rows
        by StatusCode
          0    1,000  Accepted
          101      3  Invalid DestinationAddress
        by delivery status
          DELIVRD     990
          EXPIRED       4
          UNDELIV       4
          (none yet)    2  accepted, no delivery report",
      }
    `);
  });

  it('renders the receiver summary, updated and deferred', () => {
    const paths = {
      reportPath: 'campaign.report.csv',
      logPath: 'dlr.ndjson',
      program: { name: 'npx sms-send', carry: [] },
    };
    expect(
      both((c) => renderReceiverSummary({ counts: receiverCounts, fold: updated, ...paths }, c)),
    ).toMatchInlineSnapshot(`
      {
        "colour": "<32><1>✔ <22><39><1>1,002 delivery reports received<22>
        DELIVRD        990
        EXPIRED         10
        (no status)      2
        malformed        3  <2>answered 4xx, logged<22>
        unsigned         4  <2>refused (no proof): changed nothing<22>
        bad signature    2  <2>refused (a proof sms-send did not make): changed nothing<22>
        <2>report<22>  campaign.report.csv: 998 message ids matched; 2 not in the report (kept in the log), e.g. other-1, other-2
        <2>log<22>     dlr.ndjson",
        "plain": "✔ 1,002 delivery reports received
        DELIVRD        990
        EXPIRED         10
        (no status)      2
        malformed        3  answered 4xx, logged
        unsigned         4  refused (no proof): changed nothing
        bad signature    2  refused (a proof sms-send did not make): changed nothing
        report  campaign.report.csv: 998 message ids matched; 2 not in the report (kept in the log), e.g. other-1, other-2
        log     dlr.ndjson",
      }
    `);
    expect(
      both((c) =>
        renderReceiverSummary(
          {
            counts: receiverCounts,
            fold: {
              kind: 'deferred',
              reason: 'locked',
              message:
                'another sms-send is writing to it (pid 4242 on vm, since 2026-01-01T00:00:00.000Z)',
            },
            ...paths,
          },
          c,
        ),
      ),
    ).toMatchInlineSnapshot(`
      {
        "colour": "<33><1>! <22><39><1>1,002 delivery reports received<22>
        DELIVRD        990
        EXPIRED         10
        (no status)      2
        malformed        3  <2>answered 4xx, logged<22>
        unsigned         4  <2>refused (no proof): changed nothing<22>
        bad signature    2  <2>refused (a proof sms-send did not make): changed nothing<22>
      <33>  report  campaign.report.csv not updated: another sms-send is writing to it (pid 4242 on vm, since 2026-01-01T00:00:00.000Z); the receiver cannot fold into it while that run holds it<39>
        the delivery reports received are kept in dlr.ndjson
        once that run has ended, fold them in: npx sms-send dlr apply --report campaign.report.csv --from dlr.ndjson
        <2>log<22>     dlr.ndjson",
        "plain": "! 1,002 delivery reports received
        DELIVRD        990
        EXPIRED         10
        (no status)      2
        malformed        3  answered 4xx, logged
        unsigned         4  refused (no proof): changed nothing
        bad signature    2  refused (a proof sms-send did not make): changed nothing
        report  campaign.report.csv not updated: another sms-send is writing to it (pid 4242 on vm, since 2026-01-01T00:00:00.000Z); the receiver cannot fold into it while that run holds it
        the delivery reports received are kept in dlr.ndjson
        once that run has ended, fold them in: npx sms-send dlr apply --report campaign.report.csv --from dlr.ndjson
        log     dlr.ndjson",
      }
    `);
  });

  it('renders dlr apply', () => {
    const log: LogCounts = {
      reports: 1004,
      refused: { unsigned: 0, 'bad signature': 0, 'unknown id': 1, 'bad status': 0 },
      withoutStatus: 2,
      malformed: 12,
      malformedLines: [3, 9],
    };
    expect(
      both((c) =>
        renderApply(log, updated, { reportPath: 'campaign.report.csv', logPath: 'dlr.ndjson' }, c),
      ),
    ).toMatchInlineSnapshot(`
      {
        "colour": "<33><1>! 1,004 delivery reports folded into campaign.report.csv<22><39>
        matched     998  message ids (998 rows changed)
        unmatched     2  message ids not in the report, e.g. other-1, other-2
        no status     2  reports, nothing to record
        unknown id    1  <2>refused (not a message of this report's campaign): changed nothing<22>
        malformed    12  log lines skipped (line 3, 9, …)",
        "plain": "! 1,004 delivery reports folded into campaign.report.csv
        matched     998  message ids (998 rows changed)
        unmatched     2  message ids not in the report, e.g. other-1, other-2
        no status     2  reports, nothing to record
        unknown id    1  refused (not a message of this report's campaign): changed nothing
        malformed    12  log lines skipped (line 3, 9, …)",
      }
    `);
  });

  it('renders the receiver line of the spinner', () => {
    expect(renderReceiverLine(receiverCounts, updated)).toMatchInlineSnapshot(
      `"1,002 delivery reports  DELIVRD 990 · EXPIRED 10 · no status 2  malformed 3  refused 6  report: 998 matched, 2 not in it (yet)"`,
    );
  });
});

describe('campaigns', () => {
  it('lists campaigns as a table', () => {
    expect(both((c) => renderCampaignList(campaigns, '/state', c))).toMatchInlineSnapshot(`
      {
        "colour": "<1>ID                <22>  <1>STARTED             <22>  <1>STATUS     <22>  <1>ACCEPTED              <22>  <1>OTHER                <22>  <1>INPUTS      <22>  <1>REPORT<22>
      c-3f2a9b            2025-06-01 12:00 UTC  <32>finished<39>     1,190 / 1,193 accepted  3 rejected, 7 invalid  campaign.csv  /data/campaign.report.csv
      tonight-2025-06-02  2025-06-02 21:00 UTC  <33>interrupted<39>  2 / 5 accepted          3 unknown              campaign.csv",
        "plain": "ID                  STARTED               STATUS       ACCEPTED                OTHER                  INPUTS        REPORT
      c-3f2a9b            2025-06-01 12:00 UTC  finished     1,190 / 1,193 accepted  3 rejected, 7 invalid  campaign.csv  /data/campaign.report.csv
      tonight-2025-06-02  2025-06-02 21:00 UTC  interrupted  2 / 5 accepted          3 unknown              campaign.csv",
      }
    `);
  });

  it.each([
    [
      'a wide terminal: the whole table, as without one',
      200,
      [
        'ID                  STARTED               STATUS       ACCEPTED                OTHER                  INPUTS        REPORT',
        'c-3f2a9b            2025-06-01 12:00 UTC  finished     1,190 / 1,193 accepted  3 rejected, 7 invalid  campaign.csv  /data/campaign.report.csv',
        'tonight-2025-06-02  2025-06-02 21:00 UTC  interrupted  2 / 5 accepted          3 unknown              campaign.csv',
      ],
    ],
    [
      'UTC and accepted said once, in the header; REPORT cut at its start, INPUTS and OTHER at their end',
      112,
      [
        'ID                  STARTED (UTC)     STATUS       ACCEPTED       OTHER               INPUTS    REPORT',
        'c-3f2a9b            2025-06-01 12:00  finished     1,190 / 1,193  3 rejected, 7 inv…  campaig…  …aign.report.csv',
        'tonight-2025-06-02  2025-06-02 21:00  interrupted  2 / 5          3 unknown           campaig…',
      ],
    ],
    [
      '80 columns: INPUTS and REPORT left out, and said so; OTHER cut',
      80,
      [
        'ID                  STARTED (UTC)     STATUS       ACCEPTED       OTHER',
        'c-3f2a9b            2025-06-01 12:00  finished     1,190 / 1,193  3 rejected, 7…',
        'tonight-2025-06-02  2025-06-02 21:00  interrupted  2 / 5          3 unknown',
        'INPUTS, REPORT left out (80 columns): campaigns show ID and --json have them',
      ],
    ],
    [
      '76 columns: OTHER cut further',
      76,
      [
        'ID                  STARTED (UTC)     STATUS       ACCEPTED       OTHER',
        'c-3f2a9b            2025-06-01 12:00  finished     1,190 / 1,193  3 rejecte…',
        'tonight-2025-06-02  2025-06-02 21:00  interrupted  2 / 5          3 unknown',
        'INPUTS, REPORT left out (76 columns): campaigns show ID and --json have them',
      ],
    ],
  ])('fits a terminal: %s', (_what, width, lines) => {
    const drawn = renderCampaignList(campaigns, '/state', plain, width).split('\n');
    expect(drawn).toEqual(lines);
    for (const line of drawn.slice(0, -1)) expect(line.length).toBeLessThanOrEqual(width);
  });

  it('names campaigns show for a campaign whose run was killed, whose manifest has no counts', () => {
    const killed: CampaignEntry = {
      ...campaigns[1]!,
      manifest: { ...campaigns[1]!.manifest, status: 'running' },
      counts: { accepted: 0, rejected: 0, invalid: 0, failed: 0, unknown: 0, skipped: 0 },
    };
    const listed = renderCampaignList([killed], '/state', plain);
    expect(listed).toContain(
      '? / 5 accepted  not written at its end: campaigns show tonight-2025-06-02 counts it',
    );
    expect(listed).not.toContain('0 / 5 accepted');
  });

  it('says when there are none', () => {
    expect(renderCampaignList([], '/state', plain)).toMatchInlineSnapshot(
      `"no campaigns in /state"`,
    );
  });

  it('shows one campaign with the follow-ups that re-sent its records', () => {
    const counts = { accepted: 3, rejected: 1, invalid: 0, failed: 0, unknown: 0, skipped: 0 };
    const detail = {
      ...campaigns[1]!,
      countedFromJournal: false,
      fromReport: 0,
      inFlight: { sentWithoutAnswer: 0, notKnownToHaveLeft: 0 },
      setAside: { journals: 0, bytes: 0 },
      followUps: [
        { id: 'aaaa000011112222', status: 'finished' as const, include: [], counts },
        { id: 'bbbb000011112222', status: 'stopped' as const, include: ['unknown'], counts },
      ],
    };
    const shown = renderCampaign(detail, plain);
    expect(shown).toContain(
      'follow-ups\n  aaaa000011112222  finished  3 accepted, 1 rejected\n' +
        '  bbbb000011112222  stopped  3 accepted, 1 rejected (--include unknown)\ninputs',
    );
  });

  it('shows a killed campaign counted with the answers only its report kept', () => {
    const detail = {
      ...campaigns[1]!,
      countedFromJournal: true,
      fromReport: 200,
      inFlight: { sentWithoutAnswer: 150, notKnownToHaveLeft: 50 },
      setAside: { journals: 0, bytes: 0 },
      followUps: [],
    };
    expect(renderCampaign(detail, plain)).toContain(
      'records   5: 2 accepted, 3 unknown (settled so far, from its journal and, for 200 of ' +
        'them, from its report, where --resume takes them from, 150 sent without an answer, ' +
        '50 recorded, not known to have left)\ntarget',
    );
  });

  it('shows one campaign: counts from its journal, and the journals --force runs set aside', () => {
    const detail = {
      ...campaigns[1]!,
      countedFromJournal: true,
      fromReport: 0,
      inFlight: { sentWithoutAnswer: 0, notKnownToHaveLeft: 0 },
      setAside: { journals: 2, bytes: 1_234_567 },
      followUps: [],
    };
    expect(both((c) => renderCampaign(detail, c))).toMatchInlineSnapshot(`
      {
        "colour": "<1>campaign<22>  tonight-2025-06-02<2> (named with --campaign)<22>
      <1>status<22>    <33>interrupted<39> (gateway unreachable)
      <1>started<22>   2025-06-02T21:00:00.000Z<2> (run 2; first 2025-06-02T20:00:00.000Z)<22>
      <1>finished<22>  <2>-<22>
      <1>records<22>   5: 2 accepted, 3 unknown<2> (settled so far, from its journal)<22>
      <1>target<22>    simulator
      <1>inputs<22>
        /data/campaign.csv  <2>123,456 bytes, sha256 abababababababab<22>
      <1>reports<22>
      <1>state<22>     /state/campaigns/tonight-2025-06-02
      <1>set aside<22> 2 journals of runs before a --force run <2>(1.2 MB; removed with the campaign by campaigns prune)<22>",
        "plain": "campaign  tonight-2025-06-02 (named with --campaign)
      status    interrupted (gateway unreachable)
      started   2025-06-02T21:00:00.000Z (run 2; first 2025-06-02T20:00:00.000Z)
      finished  -
      records   5: 2 accepted, 3 unknown (settled so far, from its journal)
      target    simulator
      inputs
        /data/campaign.csv  123,456 bytes, sha256 abababababababab
      reports
      state     /state/campaigns/tonight-2025-06-02
      set aside 2 journals of runs before a --force run (1.2 MB; removed with the campaign by campaigns prune)",
      }
    `);
  });
});

describe('renderCheck', () => {
  it('renders a passed check with a test message', () => {
    expect(
      both((c) =>
        renderCheck(
          {
            ok: true,
            endpoint: 'https://smsgw.example/rest',
            httpStatus: 200,
            processResult: true,
            roundTripMs: 42,
            tls: 'TLSv1.3',
            proxy: 'http://***@proxy.example:3128 (HTTPS_PROXY)',
            attempts: 3,
            retried: ['HTTP 503', 'HTTP 429'],
            message: {
              to: '4741234567',
              messageId: 'm1',
              statusCode: 0,
              statusDescription: 'Accepted',
              transactionId: 't-1',
            },
          },
          c,
        ),
      ),
    ).toMatchInlineSnapshot(`
      {
        "colour": "<32><1>✔ gateway check passed<22><39>
        endpoint        https://smsgw.example/rest
        HTTP status     200
        ProcessResult   true
        round trip      42 ms
        TLS             TLSv1.3
        proxy           http://***@proxy.example:3128 (HTTPS_PROXY)
        attempts        3, sent again after HTTP 503, HTTP 429
        test message    to 4741234567: StatusCode 0 Accepted
        TransactionId   t-1",
        "plain": "✔ gateway check passed
        endpoint        https://smsgw.example/rest
        HTTP status     200
        ProcessResult   true
        round trip      42 ms
        TLS             TLSv1.3
        proxy           http://***@proxy.example:3128 (HTTPS_PROXY)
        attempts        3, sent again after HTTP 503, HTTP 429
        test message    to 4741234567: StatusCode 0 Accepted
        TransactionId   t-1",
      }
    `);
  });

  it('renders a failed check with its reason', () => {
    expect(
      both((c) =>
        renderCheck(
          {
            ok: false,
            endpoint: 'http://127.0.0.1:9/rest',
            processResult: false,
            processResultDescription: 'Authentication failed',
            roundTripMs: 3,
            proxy: 'none',
            attempts: 1,
            reason: 'credentials refused',
          },
          c,
        ),
      ),
    ).toMatchInlineSnapshot(`
      {
        "colour": "<31><1>✖ gateway check failed<22><39>
        endpoint        http://127.0.0.1:9/rest
        HTTP status     -
        ProcessResult   false (Authentication failed)
        round trip      3 ms
        TLS             -
        proxy           none
      <31>  reason          credentials refused<39>",
        "plain": "✖ gateway check failed
        endpoint        http://127.0.0.1:9/rest
        HTTP status     -
        ProcessResult   false (Authentication failed)
        round trip      3 ms
        TLS             -
        proxy           none
        reason          credentials refused",
      }
    `);
  });
});

describe('simulator banner', () => {
  it('gives a send command that works as printed, and lists what is on', () => {
    expect(
      both((c) =>
        renderSimulatorBanner(
          {
            url: 'http://127.0.0.1:8099',
            sample: 'samples/campaign.csv',
            faults: {},
            program: 'sms-send',
          },
          c,
        ),
      ),
    ).toMatchInlineSnapshot(`
      {
        "colour": "<32>simulator listening<39> on http://127.0.0.1:8099
        send to it:       SMS_SEND_USERNAME=demo SMS_SEND_PASSWORD=demo sms-send samples/campaign.csv --endpoint http://127.0.0.1:8099 --report simulated.report.csv
        credentials:      any non-empty username and password
        faults:           none (--fault name=value turns one on)
        delivery reports: off (--dlr turns them on)
        Ctrl-C stops it.",
        "plain": "simulator listening on http://127.0.0.1:8099
        send to it:       SMS_SEND_USERNAME=demo SMS_SEND_PASSWORD=demo sms-send samples/campaign.csv --endpoint http://127.0.0.1:8099 --report simulated.report.csv
        credentials:      any non-empty username and password
        faults:           none (--fault name=value turns one on)
        delivery reports: off (--dlr turns them on)
        Ctrl-C stops it.",
      }
    `);
    expect(
      renderSimulatorBanner(
        {
          url: 'http://127.0.0.1:8099',
          sample: '/opt/sms send/samples/campaign.csv',
          credentials: { username: 'acme', password: "it's secret" },
          faults: { unavailable: 0.1, latencyMs: 1500, authStatus: 401 },
          deliveryReports: { delayMs: 2500, statusMix: { DELIVRD: 9, UNDELIV: 1 } },
          program: 'npx sms-send',
        },
        plain,
      ),
    ).toMatchInlineSnapshot(`
      "simulator listening on http://127.0.0.1:8099
        send to it:       SMS_SEND_USERNAME=acme SMS_SEND_PASSWORD='it'\\''s secret' npx sms-send '/opt/sms send/samples/campaign.csv' --endpoint http://127.0.0.1:8099 --report simulated.report.csv
        credentials:      only the pair given with --credentials
        faults:           unavailable=0.1, latencyMs=1500, authStatus=401
        delivery reports: DELIVRD 90%, UNDELIV 10%, 2,500 ms after acceptance
        Ctrl-C stops it."
    `);
  });

  it('counts what it accepted with separators and plurals', () => {
    expect(renderSimulatorStopped({ accepted: 3000 })).toBe(
      'simulator stopped after accepting 3,000 messages',
    );
    expect(renderSimulatorStopped({ accepted: 1 })).toBe(
      'simulator stopped after accepting 1 message',
    );
    expect(
      renderSimulatorStopped({ accepted: 3000, distinct: 2990, duplicates: 10 }, 'a.ndjson'),
    ).toBe(
      'simulator stopped after accepting 3,000 messages: 2,990 MessageIds, 10 accepted twice (ledger a.ndjson)',
    );
  });
});
