// A campaign's counts are the same wherever they are shown: the summary a run ends with (after
// Ctrl-C too), the `campaigns` list, `campaigns show` and the report, with the same "of N messages".
// In-process: the real program, an in-test simulator.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';
import type { CliResult } from '../helpers/cli.js';
import { mobile, parseCsv, tempDir } from '../helpers/files.js';
import { runInProcess } from '../helpers/in-process.js';

const RECORDS = 60;
/** Every tenth record has a recipient that is no phone number: invalid, reported, never sent. */
const INVALID = RECORDS / 10;

let dir: { path: string; remove: () => Promise<void> };
let sim: Simulator;
let input: string;
let report: string;

beforeEach(async () => {
  dir = await tempDir();
  sim = await startSimulator({ faults: { latencyMs: 5 } });
  input = join(dir.path, 'campaign.csv');
  report = join(dir.path, 'campaign.report.csv');
  const lines = ['to,text'];
  for (let i = 0; i < RECORDS; i++) lines.push(`${i % 10 === 3 ? 'nope' : mobile(i)},Hello ${i}`);
  await writeFile(input, `${lines.join('\n')}\n`);
});

afterEach(async () => {
  await sim.stop();
  await dir.remove();
});

function run(args: string[]): Promise<CliResult> {
  return runInProcess(args, {
    env: {
      SMS_SEND_STATE_DIR: join(dir.path, 'state'),
      SMS_SEND_USERNAME: 'u',
      SMS_SEND_PASSWORD: 'p',
    },
  });
}

const SEND = () => [
  input,
  '--endpoint',
  sim.url,
  '--report',
  report,
  '--skip-invalid',
  '--batch-size',
  '5',
  '--concurrency',
  '1',
];

/** Runs ARGS until the gateway took `after` messages, then sends it the signal Ctrl-C sends. */
async function interruptWhen(args: string[], after: number): Promise<CliResult> {
  const before = new Set(process.listeners('SIGINT'));
  const running = run(args);
  while (sim.ledger.length < after) await new Promise((r) => setTimeout(r, 2));
  for (const listener of process.listeners('SIGINT')) {
    if (!before.has(listener)) listener('SIGINT');
  }
  return running;
}

/** Outcome → count, from the report's rows. */
async function reportCounts(): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const row of parseCsv(await readFile(report, 'utf8'))) {
    counts[row.outcome!] = (counts[row.outcome!] ?? 0) + 1;
  }
  return counts;
}

/** What the summary, the list and `campaigns show` say of the campaign, and the report's counts. */
async function everywhere(summary: CliResult) {
  const id = /campaign {2}(\w+)/.exec(summary.stdout)![1]!;
  const list = await run(['campaigns']);
  const show = await run(['campaigns', 'show', id]);
  const row = list.stdout.split('\n').find((line) => line.startsWith(id))!;
  return {
    headline: /^[✔!] ([\d,]+) of ([\d,]+) messages accepted$/m.exec(summary.stdout)!.slice(1),
    listed: /([\d,]+) \/ ([\d,]+) accepted +(.*?) {2}/.exec(row)!.slice(1),
    shown: /^records +(.*)$/m.exec(show.stdout)![1],
    report: await reportCounts(),
  };
}

describe('a campaign counted the same everywhere', () => {
  it('interrupted by Ctrl-C: the stop, the list, campaigns show and the report agree', async () => {
    const stopped = await interruptWhen(SEND(), 10);
    expect(stopped.code, stopped.stderr).toBe(130);
    const seen = await everywhere(stopped);
    const { accepted, skipped, invalid } = seen.report;
    expect(invalid).toBe(INVALID);
    expect(accepted! + skipped! + invalid!).toBe(RECORDS);
    const messages = String(RECORDS - INVALID);
    expect(seen.headline).toEqual([String(accepted), messages]);
    expect(seen.listed).toEqual([
      String(accepted),
      messages,
      `${INVALID} invalid, ${skipped} skipped`,
    ]);
    expect(seen.shown).toBe(
      `${RECORDS}: ${accepted} of ${messages} messages accepted, ${INVALID} invalid, ${skipped} skipped`,
    );
  });

  it('a pilot with --limit: what the limit left out is no message, wherever it is counted', async () => {
    const pilot = await run([...SEND(), '--limit', '10']);
    expect(pilot.code, pilot.stderr).toBe(1); // the invalid records
    const seen = await everywhere(pilot);
    expect(seen.report).toEqual({ accepted: 10, invalid: INVALID, skipped: 44 });
    expect(seen.headline).toEqual(['10', '10']);
    expect(seen.listed).toEqual(['10', '10', `${INVALID} invalid, 44 skipped`]);
    expect(seen.shown).toBe(`60: 10 of 10 messages accepted, ${INVALID} invalid, 44 skipped`);
  });
});
