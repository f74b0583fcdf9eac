// Step three, answered: when a finished campaign's manifest answers a --resume or --once without
// its journal or inputs being read (nothing left to send, the same report), and the result it gives.
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { answeredResult, answerFinished } from '../../../src/campaign/steps/answered.js';
import { claim, look } from '../../../src/campaign/steps/claim.js';
import { identify } from '../../../src/campaign/steps/identify.js';
import type { Answered, ManifestAnswer } from '../../../src/campaign/steps/planned.js';
import type { CampaignChoices } from '../../../src/campaign/run.js';
import { closeState } from '../../../src/journal/open-store.js';
import { ExitCode } from '../../../src/shared/errors.js';
import { startSimulator, type Simulator } from '../../../src/simulator/index.js';
import { sendRun, stepRun, StepFolder } from '../../helpers/step-run.js';

const folder = new StepFolder(6);

/** What the manifest answers a real run with `choices`: claimed, answered, released. */
async function answered(choices: CampaignChoices = {}): Promise<Answered | undefined> {
  const run = await stepRun(folder.dir.path, folder.gateway.url, { choices });
  try {
    const identified = await identify(run);
    const hold = await claim(run, identified);
    try {
      return await answerFinished(run, identified, hold);
    } finally {
      await hold.close();
    }
  } finally {
    await closeState(run);
  }
}

/** Every record sent to a simulator that takes them and then answers HTTP 500: all unknown. */
async function sentUnknown(): Promise<void> {
  const sim: Simulator = await startSimulator({ faults: { errorAfterProcessing: 1 } });
  try {
    const sent = await sendRun(folder.dir.path, sim.url, { settings: { retries: 0 } });
    expect(sent.result.summary.byOutcome.unknown).toBe(6);
  } finally {
    await sim.stop();
  }
}

const send = (choices: CampaignChoices = {}) =>
  sendRun(folder.dir.path, folder.gateway.url, { choices });

describe('answerFinished: the manifest answers', () => {
  it('a --resume of a finished campaign, with its counts and as many records, nothing to send', async () => {
    await send();
    const answer = await answered({ resume: true });
    expect(answer?.answer).toMatchObject({ records: 6, counts: { accepted: 6, failed: 0 } });
    expect(answer?.answer.done).toBeUndefined();
    expect(answer?.answer.elsewhere).toBeUndefined();
    expect(answer).toMatchObject({ toSend: 0, resuming: true, followUp: false });
    expect(answer?.plan.records).toBe(6);
  });

  it.each<[string, () => Promise<unknown>, CampaignChoices]>([
    ['a pilot resumed with its own --limit', () => send({ limit: 2 }), { resume: true, limit: 2 }],
    ['unknown records, without --retry-unknown', sentUnknown, { resume: true }],
  ])('%s', async (_what, before, choices) => {
    await before();
    expect((await answered(choices))?.answer.records).toBe(6);
  });
});

describe('answerFinished: the manifest does not answer, the journal is read', () => {
  it.each<[string, () => Promise<unknown>, CampaignChoices]>([
    ['a new campaign', () => Promise.resolve(), {}],
    ['a --force run', () => send(), { force: true }],
    ['a --resume that writes another report', () => send(), { resume: true, report: 'b.csv' }],
    [
      'a --resume whose report was removed',
      () => send().then(() => rm(join(folder.dir.path, 'report.csv'))),
      { resume: true },
    ],
    ['a pilot resumed past its --limit', () => send({ limit: 2 }), { resume: true }],
    ['unknown records, with --retry-unknown', sentUnknown, { resume: true, retryUnknown: true }],
  ])('%s', async (_what, before, choices) => {
    await before();
    expect(await answered(choices)).toBeUndefined();
  });

  it('a dry run, which only looks', async () => {
    await send();
    const run = await stepRun(folder.dir.path, folder.gateway.url, {
      choices: { resume: true, dryRun: true },
    });
    try {
      const identified = await identify(run);
      expect(await answerFinished(run, identified, await look(run, identified))).toBeUndefined();
    } finally {
      await closeState(run);
    }
  });
});

describe('answerFinished: --once of a finished campaign', () => {
  it('is done, whatever its manifest holds', async () => {
    await send({ limit: 2 });
    const answer = await answered({ once: true });
    expect(answer?.answer).toMatchObject({ done: true, counts: { accepted: 2, skipped: 4 } });
    expect(answer?.answer.elsewhere).toBeUndefined();
  });

  it('names the report the campaign wrote when this run names another', async () => {
    await send();
    const answer = await answered({ once: true, report: 'b.csv' });
    expect(answer?.answer.elsewhere).toEqual({ report: join(folder.dir.path, 'report.csv') });
  });

  it("says this host's file is stale when an earlier run of it wrote there", async () => {
    await send();
    await send({ force: true, report: 'b.csv' });
    const answer = await answered({ once: true });
    expect(answer?.answer.elsewhere).toEqual({
      report: join(folder.dir.path, 'b.csv'),
      staleHere: join(folder.dir.path, 'report.csv'),
    });
  });
});

describe('answeredResult', () => {
  const zero = { accepted: 0, rejected: 0, invalid: 0, failed: 0, unknown: 0, skipped: 0 };
  const cases: [string, Partial<ManifestAnswer['counts']>, boolean, ExitCode, number][] = [
    ['every record accepted', { accepted: 6 }, false, ExitCode.ok, 6],
    ['some rejected', { accepted: 5, rejected: 1 }, false, ExitCode.notAllAccepted, 6],
    ['some unknown', { accepted: 3, unknown: 3 }, false, ExitCode.notAllAccepted, 6],
    ['some left out (skipped)', { accepted: 4, skipped: 2 }, false, ExitCode.ok, 4],
    // --once of a finished campaign ends as the run that finished it did: one rule for both.
    ['--once, every record accepted', { accepted: 6 }, true, ExitCode.ok, 6],
    ['--once, some rejected', { accepted: 5, rejected: 1 }, true, ExitCode.notAllAccepted, 6],
    ['--once, some unknown', { accepted: 3, unknown: 3 }, true, ExitCode.notAllAccepted, 6],
    ['--once, some left out (skipped)', { accepted: 4, skipped: 2 }, true, ExitCode.ok, 4],
  ];

  // One real answer, its counts replaced case by case: the result is counted from them alone.
  it('counts the exit code and the records the journal settled from the counts', async () => {
    await send();
    const answer = (await answered({ resume: true }))!.answer;
    const run = await stepRun(folder.dir.path, folder.gateway.url);
    try {
      for (const [what, some, done, exitCode, fromJournal] of cases) {
        const counts = { ...zero, ...some };
        // As the finished run recorded them: its skipped records were left out on purpose.
        const summary = { ...answer.summary, notToSend: counts.skipped };
        const result = answeredResult(
          run,
          { ...answer, counts, done, summary },
          join(folder.dir.path, 'r.csv'),
        );
        expect(result.exitCode, what).toBe(exitCode);
        expect(result.summary, what).toMatchObject({ total: 6, exitCode, durationMs: 0 });
        expect(result.summary.reportPath, what).toBe(join(folder.dir.path, 'r.csv'));
        expect(result.summary.byOutcome, what).toEqual(counts);
        // What a finished campaign skipped was left out on purpose: not counted as messages.
        expect(result.summary.notToSend, what).toBe(counts.skipped);
        expect(result.send, what).toMatchObject({ interrupted: false, notSent: 0 });
        expect(result.send.resumed, what).toEqual({
          fromJournal,
          fromReport: 0,
          inFlight: 0,
          unposted: 0,
        });
      }
      const elsewhere = { report: join(folder.dir.path, 'b.csv') };
      const result = answeredResult(run, { ...answer, elsewhere }, join(folder.dir.path, 'r.csv'));
      // The summary names the report the campaign wrote, not the one named here.
      expect(result.summary.reportPath).toBe(elsewhere.report);
      expect(result.reportElsewhere).toEqual(elsewhere);
    } finally {
      await closeState(run);
    }
  });
});
