// The programmatic API in process, against the simulator: the documents --json prints, the
// progress events, an AbortSignal that stops a send resumably, typed errors, and no output.
import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  check,
  ExitCode,
  GatewayUnusableError,
  InterruptedError,
  plan,
  send,
  SendEmitter,
  startSimulator,
  UsageError,
  type Simulator,
  type SummaryDocument,
} from '../../src/index.js';
import { findDuplicates } from '../../src/simulator/index.js';
import { runCli } from '../helpers/cli.js';
import { tempDir, writeCampaignCsv } from '../helpers/files.js';

const SAMPLE = new URL('../../samples/campaign.csv', import.meta.url).pathname;
const CREDENTIALS = { username: 'api-user', password: 'api-secret' };

let sim: Simulator;
let dir: { path: string; remove: () => Promise<void> };

beforeEach(async () => {
  sim = await startSimulator({ credentials: CREDENTIALS });
  dir = await tempDir();
});

afterEach(async () => {
  await sim.stop();
  await dir.remove();
});

/** The settings of a send to the test's simulator, its state in the test's own folder. */
function gateway(extra: Record<string, unknown> = {}) {
  return {
    endpoint: sim.url,
    ...CREDENTIALS,
    stateDir: process.env.SMS_SEND_STATE_DIR,
    ...extra,
  };
}

/** What differs between two runs of the same campaign: when, how fast, and where the report is. */
function stable(document: SummaryDocument) {
  const { startedAt, durationMs, messagesPerSecond, report, ...rest } = document.summary;
  expect(Date.parse(startedAt)).not.toBeNaN();
  expect([durationMs, messagesPerSecond, report.length].every((n) => n >= 0)).toBe(true);
  return rest;
}

describe('send()', () => {
  it('returns the document `sms-send send --json` prints for the same input', async () => {
    const api = await send({
      inputs: [SAMPLE],
      settings: gateway(),
      report: join(dir.path, 'api.report.csv'),
    });
    expect(api.summary.byOutcome.accepted).toBe(12);
    expect(api.summary.exitCode).toBe(0);
    expect(api.summary.report).toBe(join(dir.path, 'api.report.csv'));

    // The command, in a state folder of its own so the same campaign is new to it.
    const cliState = join(dir.path, 'cli-state');
    const cli = await runCli(
      ['send', SAMPLE, '--json', '--endpoint', sim.url, '--report', join(dir.path, 'cli.csv')],
      {
        env: {
          SMS_SEND_USERNAME: CREDENTIALS.username,
          SMS_SEND_PASSWORD: CREDENTIALS.password,
          SMS_SEND_STATE_DIR: cliState,
        },
      },
    );
    expect(cli.code).toBe(0);
    const printed = JSON.parse(cli.stdout) as SummaryDocument;
    expect(Object.keys(api)).toEqual(Object.keys(printed));
    expect(stable(api)).toEqual(stable(printed));
    expect(sim.acceptedCount).toBe(24);
  });

  it('emits the progress events the terminal display listens to, and prints nothing', async () => {
    const events = new SendEmitter();
    const seen = { validated: 0, record: 0, batch: 0 };
    events.on('validated', (records) => (seen.validated = records));
    events.on('record', () => seen.record++);
    events.on('batch', () => seen.batch++);
    const stdout = vi.spyOn(process.stdout, 'write');
    const stderr = vi.spyOn(process.stderr, 'write');
    try {
      await send({
        inputs: [SAMPLE],
        settings: gateway({ batchSize: 5 }),
        report: join(dir.path, 'r.csv'),
        events,
      });
      expect(stdout).not.toHaveBeenCalled();
      expect(stderr).not.toHaveBeenCalled();
    } finally {
      stdout.mockRestore();
      stderr.mockRestore();
    }
    expect(seen).toEqual({ validated: 12, record: 12, batch: 3 });
  });

  it('reads the environment it is given: the state folder named there holds the campaign', async () => {
    const state = join(dir.path, 'from-env');
    await send({
      inputs: [SAMPLE],
      settings: { endpoint: sim.url },
      env: {
        SMS_SEND_USERNAME: CREDENTIALS.username,
        SMS_SEND_PASSWORD: CREDENTIALS.password,
        SMS_SEND_STATE_DIR: state,
      },
      report: join(dir.path, 'r.csv'),
    });
    expect(await readdir(join(state, 'campaigns'))).toHaveLength(1);
  });

  it('stops at an abort as Ctrl-C does (exit code 130), and resume: true finishes with nothing sent twice', async () => {
    const input = join(dir.path, 'big.csv');
    await writeCampaignCsv(input, 40);
    sim.setFaults({ latencyMs: 30 });
    const controller = new AbortController();
    const events = new SendEmitter();
    events.on('batch', () => controller.abort());
    const options = {
      inputs: [input],
      settings: gateway({ batchSize: 2, concurrency: 1 }),
      report: join(dir.path, 'r.csv'),
    };
    const error = await send({ ...options, events, signal: controller.signal }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(InterruptedError);
    expect((error as InterruptedError).exitCode).toBe(130);
    expect((error as InterruptedError).message).toMatch(/resume: true/);
    const stopped = (error as InterruptedError).document as SummaryDocument;
    expect(stopped.summary.exitCode).toBe(ExitCode.interrupted);
    const sentBefore = sim.acceptedCount;
    expect(sentBefore).toBeGreaterThan(0);
    expect(sentBefore).toBeLessThan(40);
    expect(stopped.summary.byOutcome.accepted).toBe(sentBefore);

    const resumed = await send({ ...options, resume: true });
    expect(resumed.summary.exitCode).toBe(0);
    expect(resumed.summary.byOutcome.accepted).toBe(40);
    expect(resumed.summary.resumed?.fromJournal).toBe(sentBefore);
    expect(sim.acceptedCount).toBe(40);
    expect(findDuplicates(sim.ledger)).toEqual([]);
  });

  it('refuses bad input with a UsageError (exit code 2), nothing sent', async () => {
    const input = join(dir.path, 'bad.csv');
    await writeFile(input, 'to,text\n4741000001,Hello\nnot-a-number,Hello\n');
    const error = await send({
      inputs: [input],
      settings: gateway(),
      report: join(dir.path, 'r.csv'),
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect(error).toMatchObject({ exitCode: 2, code: 'invalid-input' });
    expect((error as UsageError).problems).toEqual([
      expect.objectContaining({ file: input, line: 3, field: 'to' }),
    ]);
    expect(sim.requestCount).toBe(0);
  });

  it('refuses a bad setting with a UsageError (exit code 2) before reading anything', async () => {
    const error = await send({
      inputs: [SAMPLE],
      settings: gateway({ batchSize: 0 }),
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).exitCode).toBe(2);
    expect(sim.requestCount).toBe(0);
  });

  it('sends to a simulator of its own with simulate: true', async () => {
    const result = await send({
      inputs: [SAMPLE],
      simulate: true,
      settings: { stateDir: process.env.SMS_SEND_STATE_DIR },
      report: join(dir.path, 'r.csv'),
    });
    expect(result.summary).toMatchObject({ simulated: true, exitCode: 0 });
    expect(result.summary.byOutcome.accepted).toBe(12);
    expect(sim.requestCount).toBe(0);
  });
});

describe('plan()', () => {
  it('returns the dry run document, sends nothing and claims no state', async () => {
    const result = await plan({ inputs: [SAMPLE], settings: gateway() });
    expect(result.plan).toMatchObject({ records: 12, valid: 12, invalid: 0, batches: 1 });
    expect(result.plan.campaign).toMatch(/\S/);
    expect(sim.requestCount).toBe(0);
    expect(await readdir(process.env.SMS_SEND_STATE_DIR!)).toEqual([]);
  });

  it('refuses a campaign already sent, the plan beside the error', async () => {
    const report = join(dir.path, 'r.csv');
    await send({ inputs: [SAMPLE], settings: gateway(), report });
    const error = await plan({ inputs: [SAMPLE], settings: gateway(), report }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(UsageError);
    expect(error).toMatchObject({ exitCode: 2, code: 'already-sent' });
    expect((error as UsageError).document).toMatchObject({
      plan: { valid: 12 },
      error: { code: 'already-sent', exitCode: 2 },
    });
  });
});

describe('check()', () => {
  it('returns the check document of a gateway that answers', async () => {
    const result = await check({ settings: gateway() });
    expect(result.check).toMatchObject({ ok: true, endpoint: sim.url, processResult: true });
    expect(sim.acceptedCount).toBe(0);
  });

  it('rejects with GatewayUnusableError (exit code 3) when the credentials are refused', async () => {
    const error = await check({ settings: gateway({ password: 'wrong' }) }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(GatewayUnusableError);
    expect((error as GatewayUnusableError).exitCode).toBe(3);
    expect((error as GatewayUnusableError).document).toMatchObject({ check: { ok: false } });
  });

  it('sends one test message with to', async () => {
    const result = await check({ settings: gateway(), to: '+4741000001', text: 'canary' });
    expect(result.check.message).toMatchObject({ to: '4741000001', statusCode: 0 });
    expect(sim.acceptedCount).toBe(1);
  });
});
