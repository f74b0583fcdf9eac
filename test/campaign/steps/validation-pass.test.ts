// The validation pass on its own: what it spools and counts as this run's to send, when its messages
// are too timed to keep for a later run, why a plan refuses the run, and whose normalisation holds.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CampaignRun } from '../../../src/campaign/run.js';
import type { FollowUp } from '../../../src/campaign/types.js';
import { identify } from '../../../src/campaign/steps/identify.js';
import {
  normalizes,
  refusalOf,
  validationPass,
} from '../../../src/campaign/steps/validation-pass.js';
import { closeState } from '../../../src/journal/open-store.js';
import type { Entry } from '../../../src/validate/entries.js';
import type { Plan } from '../../../src/validate/plan.js';
import { readSpool, SpoolWriter } from '../../../src/validate/spool.js';
import { FakeClock } from '../../helpers/clock.js';
import { mobile, tempDir } from '../../helpers/files.js';
import { stepRun } from '../../helpers/step-run-2.js';

let dir: Awaited<ReturnType<typeof tempDir>>;
beforeEach(async () => {
  dir = await tempDir();
  // Five records; the fourth's number cannot be sent.
  const rows = [0, 1, 2, 3, 4].map((i) => `${i === 3 ? '12' : mobile(i)},Hello ${i}`);
  await writeFile(join(dir.path, 'in.csv'), `to,text\n${rows.join('\n')}\n`);
});
afterEach(async () => {
  await dir.remove();
});

/** 06:00 UTC, 07:00 in Oslo: before a 09:00-21:00 window opens. */
const EARLY = Date.parse('2025-03-04T06:00:00Z');
/** 12:00 UTC, 13:00 in Oslo: inside it. */
const NOON = Date.parse('2025-03-04T12:00:00Z');

function runOf(flags: string[], at = NOON): Promise<CampaignRun> {
  return stepRun(['in.csv', '--skip-invalid', ...flags], {
    cwd: dir.path,
    stateDir: join(dir.path, 'state'),
    clock: new FakeClock(at),
  });
}

/** The pass over in.csv, spooled to a file of the test's when `spooling`; the entries it wrote. */
async function pass(
  run: CampaignRun,
  options: { spooling: boolean; settled?: (row: number) => boolean },
) {
  try {
    const identified = await identify(run);
    await mkdir(join(dir.path, 'spools'), { recursive: true });
    const path = join(dir.path, 'spools', 'spool');
    const spool = options.spooling ? await SpoolWriter.create(path) : undefined;
    const result = await validationPass(run, {
      identity: identified.identity,
      suppression: identified.suppression,
      sentBy: [],
      seenBy: [],
      template: identified.template,
      spool,
      spooling: options.spooling,
      settled: options.settled ?? (() => false),
    }).finally(() => spool?.close());
    const entries: Entry[] = [];
    if (spool) for await (const chunk of readSpool(path)) entries.push(...chunk);
    return { ...result, entries };
  } finally {
    await closeState(run);
  }
}

const rowsOf = (bits: { count(test: (row: number) => boolean): number }) => {
  const rows: number[] = [];
  bits.count((row) => (rows.push(row), true));
  return rows;
};

describe('validationPass', () => {
  it.each([
    ['nothing settled', () => false, 4],
    ['rows 1 and 5 settled', (row: number) => row === 1 || row === 5, 2],
    ['every row settled', () => true, 0],
  ])('spools every record and counts the messages left: %s', async (_what, settled, toSend) => {
    const {
      plan,
      toSend: counted,
      messages,
      entries,
      timed,
    } = await pass(await runOf([]), {
      spooling: true,
      settled,
    });
    expect(plan.records).toBe(5);
    expect(plan.valid).toBe(4);
    expect(counted).toBe(toSend);
    // The kept rows are every message's, settled or not: a later run counts from them.
    expect(rowsOf(messages)).toEqual([1, 2, 3, 5]);
    expect(entries.map((e) => `${e.kind} ${e.row}`)).toEqual([
      'message 1',
      'message 2',
      'message 3',
      'final 4',
      'message 5',
    ]);
    expect(timed).toBe(false);
  });

  it('counts and keeps nothing when it spools nothing (a dry run that resumes nothing)', async () => {
    const { plan, toSend, messages, timed } = await pass(await runOf(['--validity', '2h']), {
      spooling: false,
    });
    expect(plan.valid).toBe(4);
    expect(toSend).toBe(0);
    expect(rowsOf(messages)).toEqual([]);
    expect(timed).toBe(false);
  });

  it.each([
    ['a window open now counts from now', NOON, '20250304140000'],
    ['a window that opens at 09:00 counts from then', EARLY, '20250304100000'],
  ])('a relative --validity is timed: %s', async (_what, at, until) => {
    const window = ['--window', '09:00-21:00', '--tz', 'Europe/Oslo', '--validity', '2h'];
    const { timed, entries } = await pass(await runOf(window, at), { spooling: true });
    expect(timed).toBe(true);
    const message = entries.find((e) => e.kind === 'message');
    expect(message?.kind === 'message' && JSON.parse(message.json)).toMatchObject({
      ValidationPeriod: until,
    });
  });
});

describe('refusalOf', () => {
  const CAP = { total: 2, maxCost: 2, currency: 'NOK' };
  it.each([
    // what, change to the plan, --skip-invalid, refusal
    ['a plan that may be sent', {}, false, undefined],
    ['invalid records', { invalid: 1 }, false, 'invalid-input'],
    ['invalid records skipped', { invalid: 1 }, true, undefined],
    ['a file problem', { fileProblems: [{ file: 'a', message: 'b' }] }, true, 'invalid-input'],
    ['invalid records and no valid ones', { invalid: 3, records: 0 }, false, 'invalid-input'],
    ['no records', { records: 0 }, false, 'empty-input'],
    ['a cost at the cap', { cost: CAP }, false, undefined],
    ['a cost over the cap', { cost: { ...CAP, total: 2.01 } }, false, 'over-max-cost'],
    ['a cost without a cap', { cost: { total: 9, currency: 'NOK' } }, false, undefined],
    [
      'invalid records before the cost',
      { invalid: 1, cost: { ...CAP, total: 3 } },
      false,
      'invalid-input',
    ],
  ] as const)('%s', async (_what, change, skipInvalid, refusal) => {
    const run = await stepRun(['in.csv', ...(skipInvalid ? ['--skip-invalid'] : [])], {
      cwd: dir.path,
      stateDir: join(dir.path, 'state'),
    });
    await closeState(run);
    const plan = { fileProblems: [], invalid: 0, records: 5, ...change } as unknown as Plan;
    expect(refusalOf(plan, run)).toBe(refusal);
  });
});

describe('normalizes', () => {
  it.each([
    ['as asked: no', [], undefined, false],
    ['as asked: yes', ['--gsm-normalize'], undefined, true],
    ['a follow-up as its original did, whatever is asked', ['--gsm-normalize'], false, false],
    ['a follow-up of a normalised original', [], true, true],
  ] as const)('%s', async (_what, flags, original, expected) => {
    const asked = await stepRun(['in.csv', ...flags], {
      cwd: dir.path,
      stateDir: join(dir.path, 'state'),
    });
    await closeState(asked);
    // A follow-up's own part here is only how its original was shaped.
    const run =
      original === undefined
        ? asked
        : { ...asked, followUp: { shape: { gsmNormalize: original } } as unknown as FollowUp };
    expect(normalizes(run)).toBe(expected);
  });
});
