// Follow-up campaigns in-process against the simulator: a campaign with rejections, failed
// requests and delivery failures, then `retry`, checked against the simulator's ledger (exactly
// the chosen records, each once, with MessageIds of their own); delivery reports settling unknown
// rows; and the refusals (changed input, the same retry twice).
import { appendFile, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { foldIntoReport } from '../../src/dlr/apply.js';
import { DeliveryBook } from '../../src/dlr/matching.js';
import { DlrReceiver } from '../../src/dlr/receiver.js';
import { recordConfirmed } from '../../src/journal/folder/confirmed.js';
import { findCampaign } from '../../src/journal/lookup.js';
import { summarizeReport } from '../../src/report/read.js';
import { holdOriginal, planFollowUp, retryReason } from '../../src/campaign/follow-up/index.js';
import {
  startSimulator,
  type SimulatorOptions,
  type Simulator,
} from '../../src/simulator/index.js';
import { tempDir, writeCampaignCsv } from '../helpers/files.js';
import { runCommand } from '../helpers/follow-up.js';
import { folderStore, folderStoreAt } from '../helpers/state.js';

let dir: Awaited<ReturnType<typeof tempDir>>;
let sims: Simulator[] = [];
let stateDir: string;

beforeEach(async () => {
  dir = await tempDir();
  stateDir = join(dir.path, 'state');
});
afterEach(async () => {
  await Promise.all(sims.map((sim) => sim.stop()));
  sims = [];
  await dir.remove();
});

async function simulator(options: SimulatorOptions = {}): Promise<Simulator> {
  const sim = await startSimulator({ seed: 3, ...options });
  sims.push(sim);
  return sim;
}

/** One batch at a time, so the seeded faults land on the same records every run. */
const STEADY = ['--batch-size', '4', '--concurrency', '1', '--retries', '0', '--outage-grace', '0'];

function run(argv: string[], sim: Simulator) {
  return runCommand(argv, { cwd: dir.path, stateDir, sim });
}

/** Rows of a report by outcome (and delivery status): `to` of each, sorted. */
function recipients(
  rows: Record<string, string>[],
  keep: (row: Record<string, string>) => boolean,
) {
  return rows
    .filter(keep)
    .map((r) => r.to)
    .sort();
}

function ledgerRecipients(messages: Record<string, unknown>[]): string[] {
  return messages.map((m) => String(m['DestinationAddress'])).sort();
}

describe('retryReason: which report rows a follow-up re-sends', () => {
  it.each([
    [{ outcome: 'failed' }, [], { reason: 'failed', chosen: true }],
    [{ outcome: 'rejected', statusCode: '120' }, [], { reason: 'rejected', chosen: true }],
    [{ outcome: 'unknown' }, [], { reason: 'unknown', chosen: false }],
    [{ outcome: 'unknown' }, ['unknown'], { reason: 'unknown', chosen: true }],
    [
      { outcome: 'accepted', deliveryStatus: 'UNDELIV' },
      [],
      { reason: 'undelivered', chosen: false },
    ],
    [
      { outcome: 'accepted', deliveryStatus: 'EXPIRED' },
      ['undelivered'],
      { reason: 'undelivered', chosen: true },
    ],
    [
      { outcome: 'accepted', deliveryStatus: 'REJECTD' },
      ['undelivered'],
      { reason: 'undelivered', chosen: true },
    ],
    [
      { outcome: 'accepted', deliveryStatus: 'undeliverable' },
      ['undelivered'],
      { reason: 'undelivered', chosen: true },
    ],
    [{ outcome: 'accepted', deliveryStatus: 'DELIVRD' }, ['undelivered'], undefined],
    [{ outcome: 'accepted', deliveryStatus: 'ENROUTE' }, ['undelivered'], undefined],
    [{ outcome: 'accepted', deliveryStatus: 'UNKNOWN' }, ['undelivered'], undefined],
    [{ outcome: 'accepted' }, ['unknown', 'undelivered'], undefined],
    // A delivery report confirmed it: accepted, never re-sent as unknown.
    [
      {
        outcome: 'accepted',
        statusDescription: 'confirmed by delivery report',
        deliveryStatus: 'DELIVRD',
      },
      ['unknown'],
      undefined,
    ],
    [{ outcome: 'invalid' }, ['unknown', 'undelivered'], undefined],
    [{ outcome: 'skipped' }, ['unknown', 'undelivered'], undefined],
  ] as const)('%j with --include %j → %j', (row, include, expected) => {
    expect(retryReason(row, include)).toEqual(expected);
  });
});

describe('sms-send retry', () => {
  it('re-sends exactly the failed and rejected records once, then on request the undelivered ones', async () => {
    const input = join(dir.path, 'campaign.csv');
    await writeCampaignCsv(input, 40);
    const report = join(dir.path, 'campaign.report.csv');
    const receiver = await DlrReceiver.start({
      reportPath: report,
      logPath: join(dir.path, 'dlr.ndjson'),
      updateIntervalMs: 60_000,
    });
    const sim = await simulator({
      faults: { rejectMessage: 0.15, unavailable: 0.15, retryAfterSeconds: 0 },
      deliveryReports: {
        statusMix: { DELIVRD: 0.6, UNDELIV: 0.2, EXPIRED: 0.2 },
        retryDelayMs: 10,
      },
    });
    const original = await run(
      ['campaign.csv', ...STEADY, '--report', report, '--dlr-url', receiver.template],
      sim,
    );
    await sim.deliveryReportsSettled();
    await receiver.stop();
    const rows = await readReportRows(report);
    const again = (r: Record<string, string>) => r.outcome === 'failed' || r.outcome === 'rejected';
    const undelivered = (r: Record<string, string>) =>
      r.outcome === 'accepted' &&
      (r.deliveryStatus === 'UNDELIV' || r.deliveryStatus === 'EXPIRED');
    // The seed gives every kind of record, so each rule below is exercised.
    expect(original.code).toBe(1);
    expect(rows.filter((r) => r.outcome === 'failed').length).toBeGreaterThan(0);
    expect(rows.filter((r) => r.outcome === 'rejected').length).toBeGreaterThan(0);
    expect(rows.filter(undelivered).length).toBeGreaterThan(0);
    expect(rows.filter((r) => r.deliveryStatus === 'DELIVRD').length).toBeGreaterThan(0);

    sim.setFaults({});
    const retry = await run(['retry', original.campaign!.slice(0, 6), ...STEADY], sim);
    // Exactly the failed and rejected records, each once.
    expect(ledgerRecipients(retry.messages)).toEqual(recipients(rows, again));
    expect(retry.retry?.selection.left.undelivered).toBe(rows.filter(undelivered).length);
    // A campaign of its own, with its own report beside the original's, linked row by row.
    expect(retry.campaign).not.toBe(original.campaign);
    expect(retry.report).toBe(
      join(dir.path, `campaign.retry-${retry.campaign!.slice(0, 8)}.report.csv`),
    );
    const byRow = new Map(rows.map((r) => [r.row, r]));
    for (const row of retry.rows) {
      const was = byRow.get(row.row)!;
      expect(row.to).toBe(was.to);
      expect(row.originalMessageId).toBe(was.messageId);
      expect(row.messageId).not.toBe(was.messageId);
      expect(row.messageId).toMatch(new RegExp(`^${retry.campaign!.slice(0, 10)}-[0-9a-z]+$`));
      expect(row.messageId!.length).toBeLessThanOrEqual(32);
    }
    expect(retry.messages.map((m) => m['MessageId']).sort()).toEqual(
      retry.rows.map((r) => r.messageId).sort(),
    );
    // The same text as the original record.
    const text = new Map(original.rows.map((r) => [r.to, r.row]));
    for (const m of retry.messages) {
      expect(m['UserData']).toBe(
        `Hello number ${Number(text.get(String(m['DestinationAddress']))) - 1}`,
      );
    }

    // The same retry again, as a nightly cron line runs it: what the first re-sent is not sent
    // again and nothing is left (exit 0), never a refusal whose way out (--force) sends twice.
    const twice = await run(['retry', original.campaign!, ...STEADY], sim);
    expect(twice.code).toBe(0);
    expect(twice.error).toBeUndefined();
    expect(twice.messages).toEqual([]);
    expect(twice.retry?.selection.alreadyRetried).toBe(rows.filter(again).length);
    expect(twice.retry?.selection.earlierFollowUps).toEqual([retry.campaign]);

    // Undelivered on request: those only, not what the first follow-up re-sent already.
    const more = await run(
      [
        'retry',
        report,
        ...STEADY,
        '--include',
        'undelivered',
        '--report',
        join(dir.path, 'u.ndjson'),
      ],
      sim,
    );
    expect(more.error).toBeUndefined();
    expect(ledgerRecipients(more.messages)).toEqual(recipients(rows, undelivered));
    expect(more.retry?.selection.alreadyRetried).toBe(rows.filter(again).length);
    const linked = (await readFile(join(dir.path, 'u.ndjson'), 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(linked.map((r) => r['originalMessageId']).sort()).toEqual(
      rows
        .filter(undelivered)
        .map((r) => r.messageId)
        .sort(),
    );
  });

  it('an unknown row a delivery report confirmed is accepted, and --include unknown never re-sends it', async () => {
    const input = join(dir.path, 'campaign.csv');
    await writeCampaignCsv(input, 8);
    const report = join(dir.path, 'campaign.report.csv');
    const sim = await simulator({
      faults: { errorAfterProcessing: 1 },
      deliveryReports: { status: 'DELIVRD', retryDelayMs: 10 },
    });
    // The receiver logs the reports without folding them into this report (dlr apply does, below).
    const receiver = await DlrReceiver.start({
      reportPath: join(dir.path, 'another.report.csv'),
      logPath: join(dir.path, 'dlr.ndjson'),
      updateIntervalMs: 60_000,
    });
    const original = await run(
      ['campaign.csv', ...STEADY, '--report', report, '--dlr-url', receiver.template],
      sim,
    );
    // Processed, then answered 500: every record unknown, yet the gateway has every one.
    expect(original.rows.map((r) => r.outcome)).toEqual(Array(8).fill('unknown'));
    expect(original.messages).toHaveLength(8);
    await sim.deliveryReportsSettled();
    await receiver.stop();
    expect(receiver.counts.received).toBe(8);

    // Reports arrive for the first five only.
    const book = new DeliveryBook();
    for (const call of sim.deliveryReportCalls.filter(
      (c) => Number(c.messageId.split('-')[1]) <= 5,
    )) {
      book.add({
        messageId: call.messageId,
        status: call.status,
        timestamp: call.timestamp,
        transactionId: call.transactionId,
        receivedAt: new Date().toISOString(),
      });
    }
    const fold = await foldIntoReport(report, book);
    expect(fold).toMatchObject({ confirmed: 5 });
    // The campaign's state agrees (what `sms-send dlr` and `dlr apply` do after a fold).
    if (fold.kind !== 'updated') throw new Error('not folded');
    expect(await recordConfirmed(stateDir, report, fold.confirmedRows)).toBe(original.campaign);
    expect(
      (await findCampaign(folderStore(stateDir), original.campaign!)).manifest.counts,
    ).toMatchObject({
      accepted: 5,
      unknown: 3,
    });
    // The same rows again (a second fold, a replayed log): the journal has them settled already,
    // so nothing changes, and no count moves twice.
    expect(await recordConfirmed(stateDir, report, fold.confirmedRows)).toBe(original.campaign);
    expect(
      (await findCampaign(folderStore(stateDir), original.campaign!)).manifest.counts,
    ).toMatchObject({
      accepted: 5,
      unknown: 3,
    });
    const rows = await readReportRows(report);
    expect(rows.map((r) => [r.row, r.outcome, r.statusDescription, r.deliveryStatus])).toEqual([
      ...[1, 2, 3, 4, 5].map((n) => [
        String(n),
        'accepted',
        'confirmed by delivery report',
        'DELIVRD',
      ]),
      ...[6, 7, 8].map((n) => [String(n), 'unknown', '', '']),
    ]);
    expect((await summarizeReport(report)).byOutcome).toMatchObject({ accepted: 5, unknown: 3 });

    // Without --include unknown nothing is re-sent; with it, only the three unconfirmed.
    sim.setFaults({});
    const none = await run(['retry', original.campaign!, ...STEADY], sim);
    expect(none.retry?.followUp).toBeUndefined();
    expect(none.retry?.selection.left.unknown).toBe(3);
    expect(none.messages).toEqual([]);
    const unknown = await run(
      ['retry', original.campaign!, ...STEADY, '--include', 'unknown'],
      sim,
    );
    expect(unknown.code).toBe(0);
    expect(ledgerRecipients(unknown.messages)).toEqual(
      recipients(rows, (r) => r.outcome === 'unknown'),
    );

    // The journal knows the confirmed rows: even --resume --retry-unknown leaves them alone, and
    // the three unknown ones are the follow-up's now: not sent again either.
    const resumed = await run(
      [
        'campaign.csv',
        ...STEADY,
        '--report',
        report,
        '--dlr-url',
        receiver.template,
        '--resume',
        '--retry-unknown',
      ],
      sim,
    );
    expect(resumed.error).toBeUndefined();
    expect(resumed.messages).toEqual([]);
    expect(resumed.rows.filter((r) => r.outcome === 'skipped').map((r) => r.row)).toEqual([
      '6',
      '7',
      '8',
    ]);
    expect(
      resumed.rows.filter((r) => r.statusDescription === 'confirmed by delivery report'),
    ).toHaveLength(5);
    // The report written afresh by the resume keeps the deliveries the fold had recorded.
    expect(resumed.rows.filter((r) => r.deliveryStatus === 'DELIVRD').map((r) => r.row)).toEqual([
      '1',
      '2',
      '3',
      '4',
      '5',
    ]);
  });

  it('keeps to the original lists as they read now, and sends texts normalised as the original did', async () => {
    const input = join(dir.path, 'campaign.csv');
    const lines = ['to,text'];
    for (let i = 0; i < 24; i++) lines.push(`${4741000000 + i},it’s number ${i}`);
    await writeFile(input, `${lines.join('\n')}\n`);
    const optouts = join(dir.path, 'optouts.txt');
    await writeFile(optouts, '4741000001\n');
    const sim = await simulator({ faults: { rejectMessage: 0.5 } });
    const report = join(dir.path, 'campaign.report.csv');
    const original = await run(
      [
        'campaign.csv',
        ...STEADY,
        '--report',
        report,
        '--suppress',
        'optouts.txt',
        '--gsm-normalize',
      ],
      sim,
    );
    const rejected = original.rows.filter((r) => r.outcome === 'rejected').map((r) => r.to);
    expect(rejected.length).toBeGreaterThan(3);
    // Two of the rejected recipients opt out after the campaign; the follow-up names no list.
    const optedOut = rejected.slice(0, 2);
    await appendFile(optouts, `${optedOut.join('\n')}\n`);
    // A gateway that now accepts everything: its ledger is what the follow-up sent.
    const retry = await run(['retry', original.campaign!, ...STEADY], await simulator());
    expect(retry.code).not.toBe(2);
    expect(ledgerRecipients(retry.messages)).toEqual(rejected.slice(2).sort());
    for (const to of optedOut) {
      expect(retry.rows.find((r) => r.to === to)).toMatchObject({
        outcome: 'skipped',
        error: 'suppressed (optouts.txt)',
      });
    }
    // The texts go out as the original sent them (normalised), and the report says so.
    expect(retry.messages.every((m) => String(m['UserData']).startsWith("it's number"))).toBe(true);
    expect(
      retry.rows.filter((r) => r.outcome !== 'skipped').every((r) => r.normalized === '1'),
    ).toBe(true);
  });

  it('offers no --skip-invalid when a setting of its own makes the chosen records invalid', async () => {
    const input = join(dir.path, 'campaign.csv');
    const long = 'x'.repeat(200);
    await writeFile(
      input,
      `to,text\n${Array.from({ length: 20 }, (_, i) => `${4741000000 + i},${long}`).join('\n')}\n`,
    );
    const sim = await simulator({ faults: { rejectMessage: 0.6 } });
    const report = join(dir.path, 'long.report.csv');
    const original = await run(['campaign.csv', ...STEADY, '--report', report], sim);
    expect(original.error).toBeUndefined();
    expect(original.rows.some((r) => r.outcome === 'rejected')).toBe(true);
    await writeFile(join(dir.path, 'short.json'), '{"maxSegments": 1}');
    const retry = await run(
      ['retry', original.campaign!, ...STEADY, '--config', join(dir.path, 'short.json')],
      sim,
    );
    expect(retry.code).toBe(2);
    expect(retry.error).toContain('needs 2 segments, more than --max-segments 1');
    expect(retry.error).not.toContain('--skip-invalid');
    expect(retry.messages).toEqual([]);
  });

  it('a --resume of the original never re-sends what a follow-up re-sent', async () => {
    const input = join(dir.path, 'campaign.csv');
    await writeCampaignCsv(input, 12);
    const report = join(dir.path, 'campaign.report.csv');
    const original = await run(
      ['campaign.csv', ...STEADY, '--report', report],
      await simulator({ faults: { unavailable: 0.5, retryAfterSeconds: 0 } }),
    );
    const failed = original.rows.filter((r) => r.outcome === 'failed').map((r) => r.row);
    expect(failed.length).toBeGreaterThan(1);
    const healthy = await simulator();
    const retry = await run(['retry', original.campaign!, ...STEADY], healthy);
    expect(retry.messages).toHaveLength(failed.length);
    // The morning's --resume of the original: the failed rows are the follow-up's now.
    const resumed = await run(['campaign.csv', ...STEADY, '--report', report, '--resume'], healthy);
    expect(resumed.error).toBeUndefined();
    expect(resumed.messages).toEqual([]);
    expect(resumed.rows.filter((r) => failed.includes(r.row)).map((r) => r.outcome)).toEqual(
      failed.map(() => 'skipped'),
    );
    expect(resumed.rows.find((r) => r.row === failed[0])!.error).toBe(
      `re-sent by follow-up campaign ${retry.campaign}; its report has the result`,
    );
  });

  it('a follow-up holds the original campaign: another follow-up or its --resume exits 4', async () => {
    const input = join(dir.path, 'campaign.csv');
    await writeCampaignCsv(input, 8);
    const sim = await simulator({ faults: { rejectMessage: 0.5 } });
    const report = join(dir.path, 'campaign.report.csv');
    const original = await run(['campaign.csv', ...STEADY, '--report', report], sim);
    const plan = await planFollowUp({
      campaign: original.campaign!,
      include: [],
      store: folderStoreAt(stateDir),
      simulate: false,
    });
    const held = await holdOriginal(folderStoreAt(stateDir), plan.followUp!);
    try {
      const second = await run(['retry', original.campaign!, ...STEADY], sim);
      expect(second.code).toBe(4);
      const resumed = await run(['campaign.csv', ...STEADY, '--report', report, '--resume'], sim);
      expect(resumed.code).toBe(4);
      expect(second.messages).toEqual([]);
      expect(resumed.messages).toEqual([]);
    } finally {
      await held.release();
    }
  });

  it('a resume takes an unknown row as accepted when its report holds a delivery report the state missed', async () => {
    const input = join(dir.path, 'campaign.csv');
    await writeCampaignCsv(input, 6);
    const report = join(dir.path, 'campaign.report.csv');
    const sim = await simulator({ faults: { errorAfterProcessing: 1 } });
    const original = await run(['campaign.csv', ...STEADY, '--report', report], sim);
    expect(original.rows.map((r) => r.outcome)).toEqual(Array(6).fill('unknown'));
    // Reports for the first three are folded into the report, but the campaign's state never
    // hears of them (dlr ran with another state directory).
    const book = new DeliveryBook();
    for (const row of original.rows.slice(0, 3)) {
      book.add({
        messageId: row.messageId!,
        status: 'DELIVRD',
        timestamp: undefined,
        transactionId: undefined,
        receivedAt: new Date().toISOString(),
      });
    }
    expect(await foldIntoReport(report, book)).toMatchObject({ confirmed: 3 });
    sim.setFaults({});
    const resumed = await run(
      ['campaign.csv', ...STEADY, '--report', report, '--resume', '--retry-unknown'],
      sim,
    );
    expect(ledgerRecipients(resumed.messages)).toEqual(
      original.rows
        .slice(3)
        .map((r) => r.to)
        .sort(),
    );
    expect(resumed.rows.map((r) => [r.outcome, r.statusDescription, r.deliveryStatus])).toEqual([
      ...Array.from({ length: 3 }, () => ['accepted', 'confirmed by delivery report', 'DELIVRD']),
      ...Array.from({ length: 3 }, () => ['accepted', 'Accepted', '']),
    ]);
  });

  it('the same retry run again finishes what the first left, sending nothing twice', async () => {
    const input = join(dir.path, 'campaign.csv');
    await writeCampaignCsv(input, 12);
    const report = join(dir.path, 'campaign.report.csv');
    const sim = await simulator({ faults: { rejectMessage: 0.4 } });
    const original = await run(['campaign.csv', ...STEADY, '--report', report], sim);
    const rejected = original.rows.filter((r) => r.outcome === 'rejected');
    expect(rejected.length).toBeGreaterThan(0);
    // The first retry is cut short: its gateway is gone (exit 3, the follow-up stopped).
    const gone = await simulator();
    await gone.stop();
    const cut = await run(['retry', original.campaign!, ...STEADY], gone);
    expect(cut.code).toBe(3);
    // Tonight's cron line runs the same retry, no --resume: it finishes the first.
    const healthy = await simulator();
    const again = await run(['retry', original.campaign!, ...STEADY], healthy);
    expect(again.error).toBeUndefined();
    expect(again.campaign).toBe(cut.campaign);
    expect(ledgerRecipients(again.messages)).toEqual(rejected.map((r) => r.to).sort());
    // And once more: nothing left.
    const third = await run(['retry', original.campaign!, ...STEADY], healthy);
    expect(third.code).toBe(0);
    expect(third.messages).toEqual([]);
  });

  it('an interrupted follow-up resumes with the rows it chose, whatever the report says since', async () => {
    const input = join(dir.path, 'campaign.csv');
    await writeCampaignCsv(input, 12);
    const report = join(dir.path, 'campaign.report.csv');
    const sim = await simulator({ faults: { rejectMessage: 0.4 } });
    const original = await run(['campaign.csv', ...STEADY, '--report', report], sim);
    const rejected = original.rows.filter((r) => r.outcome === 'rejected');
    const accepted = original.rows.filter((r) => r.outcome === 'accepted');
    expect(rejected.length).toBeGreaterThan(0);
    expect(accepted.length).toBeGreaterThan(1);
    const undeliver = async (row: Record<string, string>) => {
      const book = new DeliveryBook();
      book.add({
        messageId: row.messageId!,
        status: 'UNDELIV',
        timestamp: undefined,
        transactionId: undefined,
        receivedAt: new Date().toISOString(),
      });
      expect(await foldIntoReport(report, book)).toMatchObject({ kind: 'updated' });
    };
    await undeliver(accepted[0]!);
    // The follow-up is cut short: its gateway is gone (exit 3, the follow-up stopped).
    const gone = await simulator();
    await gone.stop();
    const cut = await run(
      ['retry', original.campaign!, ...STEADY, '--include', 'undelivered'],
      gone,
    );
    expect(cut.code).toBe(3);
    // Another delivery report arrives meanwhile: a new choice would now take a row more.
    await undeliver(accepted[1]!);
    const healthy = await simulator();
    const resumed = await run(
      ['retry', original.campaign!, ...STEADY, '--include', 'undelivered', '--resume'],
      healthy,
    );
    expect(resumed.error).toBeUndefined();
    expect(resumed.campaign).toBe(cut.campaign);
    expect(ledgerRecipients(resumed.messages)).toEqual(
      [...rejected, accepted[0]!].map((r) => r.to).sort(),
    );
  });

  it('refuses, sending nothing, when an input changed or is gone', async () => {
    const input = join(dir.path, 'campaign.csv');
    await writeCampaignCsv(input, 12);
    const sim = await simulator({ faults: { rejectMessage: 0.5 } });
    const report = join(dir.path, 'campaign.report.csv');
    const original = await run(['campaign.csv', ...STEADY, '--report', report], sim);
    expect(original.rows.some((r) => r.outcome === 'rejected')).toBe(true);

    // Outside its send window, with --no-wait: exit 5 at once, nothing sent, nothing left behind.
    const early = await run(
      ['retry', original.campaign!, ...STEADY, '--not-before', '2099-01-01T00:00', '--no-wait'],
      sim,
    );
    expect(early.code).toBe(5);
    expect(early.messages).toEqual([]);

    await appendFile(input, '4741999999,Late,Added later\n');
    const changed = await run(['retry', original.campaign!, ...STEADY], sim);
    expect(changed.code).toBe(2);
    expect(changed.error).toContain(
      `${input} has changed since campaign ${original.campaign} was sent`,
    );
    expect(changed.messages).toEqual([]);

    // A trial on the simulator is followed up on the simulator only.
    const builtIn = { seed: 3, faults: { rejectMessage: 0.5 } };
    const simulated = (argv: string[]) =>
      runCommand(argv, { cwd: dir.path, stateDir, sim, simulator: builtIn });
    const tried = await simulated([
      'campaign.csv',
      ...STEADY,
      '--simulate',
      '--report',
      join(dir.path, 't.csv'),
    ]);
    expect(tried.rows.some((r) => r.outcome === 'rejected')).toBe(true);
    expect(tried.messages).toEqual([]);
    const real = await run(['retry', tried.campaign!, ...STEADY], sim);
    expect(real.code).toBe(2);
    expect(real.error).toContain(`campaign ${tried.campaign} was tried on the simulator`);
    const trial = await simulated(['retry', tried.campaign!, ...STEADY, '--simulate']);
    expect(trial.error).toBeUndefined();
    expect(trial.rows.length).toBeGreaterThan(0);
    expect(trial.messages).toEqual([]);

    await rm(input);
    const gone = await run(['retry', original.campaign!, ...STEADY], sim);
    expect(gone.code).toBe(2);
    expect(gone.error).toContain(`input ${input} no longer exists`);
  });
});

async function readReportRows(path: string): Promise<Record<string, string>[]> {
  const { parseCsv } = await import('../helpers/files.js');
  return parseCsv(await readFile(path, 'utf8')).sort((a, b) => Number(a.row) - Number(b.row));
}
