// Send windows through the send command's pipeline, in-process against the simulator, on a fake
// clock: the cron line started at 20:59 that stops at 21:00 with exit 5 and is finished by the
// next morning's --resume with nothing twice; a run that waits for its window; --no-wait.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExitCode } from '../../src/shared/errors.js';
import { FakeClock } from '../helpers/clock.js';
import { tempDir, writeCampaignCsv } from '../helpers/files.js';
import { runPipeline, type PipelineRun } from '../helpers/pipeline.js';
import { countOutcomes } from '../helpers/reliability.js';

const RECORDS = 60;
const at = (iso: string) => Date.parse(iso);

let dir: Awaited<ReturnType<typeof tempDir>>;
let input: string;

beforeAll(async () => {
  dir = await tempDir();
  input = join(dir.path, 'tonight.csv');
  await writeCampaignCsv(input, RECORDS);
});
afterAll(async () => {
  await dir.remove();
});

/** `sms-send tonight.csv --window 09:00-21:00 --tz Europe/Oslo ARGS` on `clock`, with its own state. */
function send(
  args: string[],
  clock: FakeClock,
  options: { stateDir: string; afterBatches?: [count: number, then: () => void] },
): Promise<PipelineRun> {
  let batches = 0;
  return runPipeline(
    [
      input,
      '--window',
      '09:00-21:00',
      '--tz',
      'Europe/Oslo',
      '--batch-size',
      '10',
      '--state-dir',
      options.stateDir,
      ...args,
    ],
    {
      cwd: dir.path,
      workDir: dir.path,
      clock,
      onEvents: (events) =>
        events.on('batch', () => {
          if (++batches === options.afterBatches?.[0]) options.afterBatches[1]();
        }),
    },
  );
}

/** MessageIds the gateway accepted more than once, over every run. */
function sentTwice(...runs: PipelineRun[]): string[] {
  const seen = new Map<string, number>();
  for (const run of runs) {
    for (const m of run.messages) {
      const id = String(m.MessageId);
      seen.set(id, (seen.get(id) ?? 0) + 1);
    }
  }
  return [...seen].filter(([, n]) => n > 1).map(([id]) => id);
}

describe('the send window closes mid-campaign', () => {
  it('started at 20:59, stops at 21:00 with exit 5; the next morning --resume finishes, nothing twice', async () => {
    const stateDir = join(dir.path, 'state-cron');
    const clock = new FakeClock(at('2026-11-23T20:59+01:00'));
    const evening = await send(['--concurrency', '1'], clock, {
      stateDir,
      afterBatches: [2, () => clock.set(at('2026-11-23T21:00+01:00'))],
    });
    expect(evening.code).toBe(ExitCode.outsideWindow);
    expect(evening.windowClosed).toEqual({
      sent: 20,
      left: 40,
      window: '09:00-21:00 Europe/Oslo',
      timeZone: 'Europe/Oslo',
      now: at('2026-11-23T21:00+01:00'),
      opensAt: at('2026-11-24T09:00+01:00'),
    });
    expect(evening.messages).toHaveLength(20);
    // Every record is in the report: the rest skipped, for --resume.
    expect(countOutcomes(evening.rows)).toEqual({ accepted: 20, skipped: 40 });
    for (const row of evening.rows.filter((r) => r.outcome === 'skipped')) {
      expect(row.error).toBe('not sent: the send window closed; --resume sends it');
    }

    // The same cron line again, without --resume, is refused: the campaign is stopped, not sent.
    clock.set(at('2026-11-24T09:30+01:00'));
    const again = await send(['--concurrency', '1'], clock, { stateDir });
    expect(again.code).toBe(ExitCode.usage);
    expect(again.error).toContain('was stopped (the send window closed: 09:00-21:00 Europe/Oslo)');
    expect(again.error).toContain('--resume');
    expect(again.messages).toEqual([]);

    const morning = await send(['--concurrency', '1', '--resume'], clock, { stateDir });
    expect(morning.code).toBe(ExitCode.ok);
    expect(morning.windowClosed).toBeUndefined();
    expect(morning.messages).toHaveLength(40);
    expect(countOutcomes(morning.rows)).toEqual({ accepted: RECORDS });
    expect(sentTwice(evening, morning)).toEqual([]);
    expect(new Set([...evening.messages, ...morning.messages].map((m) => m.MessageId)).size).toBe(
      RECORDS,
    );
  });

  it('batches in flight when it closes finish; none is taken after', async () => {
    const stateDir = join(dir.path, 'state-flight');
    const clock = new FakeClock(at('2026-11-23T20:59+01:00'));
    const evening = await send(['--concurrency', '3'], clock, {
      stateDir,
      afterBatches: [1, () => clock.set(at('2026-11-23T21:00+01:00'))],
    });
    expect(evening.code).toBe(ExitCode.outsideWindow);
    const { sent, left } = evening.windowClosed!;
    // The first answer closed it: at most the three batches taken by then went out.
    expect(sent).toBeGreaterThanOrEqual(10);
    expect(sent).toBeLessThanOrEqual(30);
    expect(sent + left).toBe(RECORDS);
    expect(countOutcomes(evening.rows)).toEqual({ accepted: sent, skipped: left });
    expect(evening.messages).toHaveLength(sent);

    clock.set(at('2026-11-24T09:00+01:00'));
    const morning = await send(['--concurrency', '3', '--resume'], clock, { stateDir });
    expect(morning.code).toBe(ExitCode.ok);
    expect(countOutcomes(morning.rows)).toEqual({ accepted: RECORDS });
    expect(sentTwice(evening, morning)).toEqual([]);
    expect(evening.messages.length + morning.messages.length).toBe(RECORDS);
  });
});

describe('a run that starts outside its window', () => {
  it('waits for it to open, saying when, then sends everything', async () => {
    const clock = new FakeClock(at('2026-11-23T07:30+01:00'));
    const waits: number[] = [];
    let batchesBeforeOpen = 0;
    const run = await runPipeline(
      [input, '--window', '09:00-21:00', '--days', 'mon-fri', '--tz', 'Europe/Oslo'],
      {
        cwd: dir.path,
        workDir: dir.path,
        clock,
        onEvents: (events) => {
          events.on('waiting', (w) => waits.push(w.opensAt));
          events.on('batch', () => {
            if (clock.now() < at('2026-11-23T09:00+01:00')) batchesBeforeOpen++;
          });
        },
      },
    );
    expect(waits).toEqual([at('2026-11-23T09:00+01:00')]);
    expect(clock.sleeps).toEqual([at('2026-11-23T09:00+01:00')]);
    expect(batchesBeforeOpen).toBe(0);
    expect(run.code).toBe(ExitCode.ok);
    expect(run.messages).toHaveLength(RECORDS);
  });

  it('counts a relative --validity from when the window opens, not from the start of the wait', async () => {
    const clock = new FakeClock(at('2026-11-23T07:30+01:00'));
    const run = await runPipeline(
      [input, '--window', '09:00-21:00', '--tz', 'Europe/Oslo', '--validity', '2h'],
      { cwd: dir.path, workDir: dir.path, clock },
    );
    expect(run.code).toBe(ExitCode.ok);
    // 11:00 in Oslo is 10:00 UTC: two hours after the window opens, not 09:30 (two after 07:30).
    expect(new Set(run.messages.map((m) => m['ValidationPeriod']))).toEqual(
      new Set(['20261123100000']),
    );
  });

  it('--no-wait: exit 5 at once, nothing sent, and no state left to block the next run', async () => {
    const stateDir = join(dir.path, 'state-nowait');
    const clock = new FakeClock(at('2026-11-28T12:00+01:00'));
    const run = await send(['--days', 'mon-fri', '--no-wait'], clock, { stateDir });
    expect(run.code).toBe(ExitCode.outsideWindow);
    expect(run.error).toBe(
      'outside the send window (09:00-21:00 mon-fri Europe/Oslo): it opens Mon 09:00 ' +
        'Europe/Oslo (in 45 h). Nothing was sent; without --no-wait the run waits for it.',
    );
    expect(run.requests).toHaveLength(0);
    expect(clock.sleeps).toEqual([]);

    clock.set(at('2026-11-30T09:00+01:00'));
    const monday = await send(['--days', 'mon-fri', '--no-wait'], clock, { stateDir });
    expect(monday.code).toBe(ExitCode.ok);
    expect(monday.messages).toHaveLength(RECORDS);
  });
});
