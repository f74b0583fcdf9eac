// Step four, settled: which rows earlier runs settled (not this run's to send), read from the
// journal the run continues, with --retry-unknown and the rows a follow-up re-sent.
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { claim, look } from '../../../src/campaign/steps/claim.js';
import { identify } from '../../../src/campaign/steps/identify.js';
import { readSettled, type Settled } from '../../../src/campaign/steps/settled.js';
import type { CampaignChoices } from '../../../src/campaign/run.js';
import { closeState } from '../../../src/journal/open-store.js';
import { startSimulator } from '../../../src/simulator/index.js';
import { memoryDir } from '../../helpers/files.js';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';
import { runInProcess } from '../../helpers/in-process.js';
import { sendRun, stepRun, writeList } from '../../helpers/step-run.js';

const ROWS = 20;

let dir: Awaited<ReturnType<typeof memoryDir>>;
let gateway: TestGateway;
beforeEach(async () => {
  // A real state directory, in memory: the earlier campaigns' syncs would only add waiting.
  dir = await memoryDir();
  gateway = await startGateway();
  await writeList(dir.path, ROWS);
});
afterEach(async () => {
  await gateway.close();
  await dir.remove();
});

/** What a run with `choices` reads as settled: claimed (or looked at, a dry run), then released. */
async function settled(choices: CampaignChoices = {}): Promise<Settled> {
  const run = await stepRun(dir.path, gateway.url, { choices });
  try {
    const identified = await identify(run);
    if (choices.dryRun) return await readSettled(run, identified, await look(run, identified));
    const hold = await claim(run, identified);
    try {
      return await readSettled(run, identified, hold);
    } finally {
      await hold.close();
    }
  } finally {
    await closeState(run);
  }
}

/** The rows (1-based) it counts as settled. */
const rows = ({ isSettled }: Settled) =>
  Array.from({ length: ROWS }, (_, i) => i + 1).filter((row) => isSettled(row));
const range = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => from + i);

/** The gateway stops answering once `from` records are accepted; retries 0: each request fails once. */
async function failingFrom(from: number, exitCode: number): Promise<void> {
  gateway.refuseFrom(from);
  const settings = { batchSize: 2, retries: 0, outageGrace: 0 };
  expect((await sendRun(dir.path, gateway.url, { settings })).result.exitCode).toBe(exitCode);
  gateway.refuseFrom(undefined);
}

/** Every record sent to a simulator that takes them and then answers HTTP 500: all unknown. */
async function sentUnknown(): Promise<void> {
  const sim = await startSimulator({ faults: { errorAfterProcessing: 1 } });
  try {
    const sent = await sendRun(dir.path, sim.url, { settings: { retries: 0 } });
    expect(sent.result.summary.byOutcome.unknown).toBe(ROWS);
  } finally {
    await sim.stop();
  }
}

describe('readSettled', () => {
  it('a campaign that starts continues no journal: no row is settled', async () => {
    const got = await settled();
    expect(got.journal).toBeUndefined();
    expect(got.resent).toBeUndefined();
    expect(rows(got)).toEqual([]);
  });

  // The gateway accepts 4 records, then 5 requests in a row fail (10 records) and the run stops:
  // a failed record never reached the gateway, and is sent again.
  it.each<[string, CampaignChoices]>([
    ['a --resume', { resume: true }],
    ['a --once', { once: true }],
    ["a dry run's --resume", { resume: true, dryRun: true }],
  ])('%s of a stopped campaign: what it accepted', async (_what, choices) => {
    await failingFrom(4, 3);
    const got = await settled(choices);
    expect(got.journal?.results.size).toBe(14);
    expect(rows(got)).toEqual(range(1, 4));
  });

  it('a --resume of a finished campaign reads its journal now: every row it accepted', async () => {
    await sendRun(dir.path, gateway.url);
    // Another report: the manifest does not answer, and the journal is read.
    const got = await settled({ resume: true, report: 'again.csv' });
    expect(got.journal?.results.size).toBe(ROWS);
    expect(rows(got)).toEqual(range(1, ROWS));
  });

  it.each<[string, boolean, number[]]>([
    ['without --retry-unknown, they may have been sent', false, range(1, ROWS)],
    ['--retry-unknown sends them again', true, []],
  ])('unknown records: %s', async (_what, retryUnknown, expected) => {
    await sentUnknown();
    expect(rows(await settled({ resume: true, retryUnknown }))).toEqual(expected);
  });

  it("rows a follow-up re-sent are the follow-up's: a resume of the original leaves them", async () => {
    // The last request fails: rows 19 and 20 failed, and `retry` re-sends them.
    await failingFrom(18, 1);
    const before = await settled({ resume: true });
    expect(rows(before)).toEqual(range(1, 18));
    const run = await stepRun(dir.path, gateway.url);
    const id = (await identify(run)).identity.id;
    await closeState(run);
    const env = {
      SMS_SEND_STATE_DIR: join(dir.path, 'state'),
      SMS_SEND_USERNAME: 'u',
      SMS_SEND_PASSWORD: 'p',
    };
    const retried = await runInProcess(['retry', id, '--endpoint', gateway.url, '--yes'], {
      env,
    });
    expect(retried.code, retried.stderr).toBe(0);
    const after = await settled({ resume: true });
    expect([...(after.resent?.keys() ?? [])]).toEqual([19, 20]);
    expect(rows(after)).toEqual(range(1, ROWS));
  });
});
