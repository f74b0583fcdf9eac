// One campaign state, one mark and one exit code: the run that finishes a campaign, a --once or
// --resume that finds it finished, and a pilot's runs all end the same way for the same counts.
// In-process: the real program and its summary, an in-test simulator.
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FaultOptions as Faults } from '../../src/simulator/faults.js';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';
import { tempDir, writeCampaignCsv } from '../helpers/files.js';
import { runInProcess } from '../helpers/in-process.js';

const RECORDS = 6;

let dir: { path: string; remove: () => Promise<void> };
let sims: Simulator[] = [];

beforeEach(async () => {
  dir = await tempDir();
  await writeCampaignCsv(join(dir.path, 'campaign.csv'), RECORDS);
});

afterEach(async () => {
  for (const sim of sims) await sim.stop();
  sims = [];
  await dir.remove();
});

/** `sms-send campaign.csv ARGS` against `sim`: its exit code and the summary's headline. */
async function send(sim: Simulator, args: string[]): Promise<[number | null, string]> {
  const input = join(dir.path, 'campaign.csv');
  const result = await runInProcess([input, '--endpoint', sim.url, '--batch-size', '2', ...args], {
    env: {
      SMS_SEND_STATE_DIR: join(dir.path, 'state'),
      SMS_SEND_USERNAME: 'u',
      SMS_SEND_PASSWORD: 'p',
    },
  });
  const headline = /^[✔!] .* accepted$/m.exec(result.stdout)?.[0] ?? result.stderr;
  return [result.code, headline];
}

async function simulator(faults: Faults) {
  const sim = await startSimulator({ faults });
  sims.push(sim);
  return sim;
}

describe('the mark and the exit code of a finished campaign', () => {
  const cases: [string, Faults, string[], [number, string]][] = [
    ['every record accepted', {}, [], [0, '✔ 6 of 6 messages accepted']],
    [
      // Taken, then answered HTTP 500: every record unknown, never sent again.
      'some records unknown',
      { errorAfterProcessing: 1 },
      ['--retries', '0'],
      [1, '! 0 of 6 messages accepted'],
    ],
    [
      // A pilot: what --limit left out is not part of what was to be sent.
      'a pilot with --limit',
      {},
      ['--limit', '2'],
      [0, '✔ 2 of 2 messages accepted'],
    ],
  ];

  it.each(cases)('%s: the same for every run that reports it', async (_, faults, extra, ending) => {
    const sim = await simulator(faults);
    expect(await send(sim, extra), 'the run that finishes it').toEqual(ending);
    const sent = sim.ledger.length;
    expect(await send(sim, [...extra, '--once']), '--once, finished').toEqual(ending);
    expect(await send(sim, [...extra, '--resume']), '--resume, finished').toEqual(ending);
    expect(await send(sim, [...extra, '--once']), '--once again').toEqual(ending);
    expect(sim.ledger.length, 'nothing sent again').toBe(sent);
  });
});
