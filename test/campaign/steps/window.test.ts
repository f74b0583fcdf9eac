// Waiting for the send window before anything is sent, on a fake clock: how long it waits, that
// --no-wait ends at once (exit 5), and that a stop while it waits ends it with nothing sent.
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CampaignRun } from '../../../src/campaign/run.js';
import { waitForWindow } from '../../../src/campaign/steps/window.js';
import { closeState } from '../../../src/journal/open-store.js';
import { ExitCode, InterruptedError, OutsideWindowError } from '../../../src/shared/errors.js';
import { FakeClock } from '../../helpers/clock.js';
import { tempDir, writeCampaignCsv } from '../../helpers/files.js';
import { stepRun } from '../../helpers/step-run-2.js';

const at = (iso: string) => Date.parse(iso);
const WINDOW = ['--window', '09:00-21:00', '--tz', 'Europe/Oslo'];

let dir: Awaited<ReturnType<typeof tempDir>>;
beforeEach(async () => {
  dir = await tempDir();
  await writeCampaignCsv(join(dir.path, 'in.csv'), 2);
});
afterEach(async () => {
  await dir.remove();
});

/** `sms-send in.csv FLAGS` at `now`: the wait's outcome, what it slept until and said it waited for. */
async function wait(flags: string[], now: number, options: { stop?: AbortController } = {}) {
  const clock = new FakeClock(now);
  const run: CampaignRun = await stepRun(['in.csv', ...flags], {
    cwd: dir.path,
    stateDir: join(dir.path, 'state'),
    clock,
    ...(options.stop ? { stop: options.stop.signal } : {}),
  });
  const waiting: { opensAt: number; now: number }[] = [];
  run.io.events.on('waiting', (info: { opensAt: number; now: number }) => waiting.push(info));
  try {
    const error = await waitForWindow(run).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    return { error, sleeps: clock.sleeps, waiting, time: clock.now(), run };
  } finally {
    await closeState(run);
  }
}

describe('waitForWindow', () => {
  it.each([
    ['no window', [], at('2025-03-04T02:00:00Z')],
    ['a window open now (13:00 in Oslo)', WINDOW, at('2025-03-04T12:00:00Z')],
    ['a window that just opened', WINDOW, at('2025-03-04T08:00:00Z')],
    ['--no-wait inside the window', [...WINDOW, '--no-wait'], at('2025-03-04T12:00:00Z')],
  ])('goes on at once with %s', async (_what, flags, now) => {
    const { error, sleeps, waiting, time } = await wait(flags, now);
    expect(error).toBeUndefined();
    expect(sleeps).toEqual([]);
    expect(waiting).toEqual([]);
    expect(time).toBe(now);
  });

  it.each([
    // what, flags, now, when it opens
    ['before it opens, the same morning', WINDOW, '2025-03-04T06:00:00Z', '2025-03-04T08:00:00Z'],
    ['after it closed, the next morning', WINDOW, '2025-03-04T20:30:00Z', '2025-03-05T08:00:00Z'],
    ['a minute before it opens', WINDOW, '2025-03-04T07:59:00Z', '2025-03-04T08:00:00Z'],
    [
      'on a Friday night, on weekdays: Monday',
      [...WINDOW, '--days', 'mon-fri'],
      '2025-03-07T21:00:00Z',
      '2025-03-10T08:00:00Z',
    ],
    [
      'across a change to summer time: 09:00 is 07:00 UTC',
      WINDOW,
      '2025-03-29T22:00:00Z',
      '2025-03-30T07:00:00Z',
    ],
  ])('waits for it to open: %s', async (_what, flags, now, opens) => {
    const { error, sleeps, waiting, time } = await wait(flags, at(now));
    expect(error).toBeUndefined();
    expect(sleeps).toEqual([at(opens)]);
    expect(waiting).toMatchObject([{ opensAt: at(opens), now: at(now) }]);
    expect(time).toBe(at(opens));
  });

  it('ends at once outside the window with --no-wait: exit 5, nothing sent', async () => {
    const now = at('2025-03-04T06:00:00Z');
    const { error, sleeps, waiting } = await wait([...WINDOW, '--no-wait'], now);
    expect(error).toBeInstanceOf(OutsideWindowError);
    expect((error as OutsideWindowError).exitCode).toBe(ExitCode.outsideWindow);
    expect((error as OutsideWindowError).exitCode).toBe(5);
    expect((error as Error).message).toMatch(/^outside the send window \(09:00-21:00/);
    expect((error as Error).message).toContain('Nothing was sent');
    expect(sleeps).toEqual([]);
    expect(waiting).toEqual([]);
  });

  it('ends interrupted, with nothing sent, when stopped while it waits', async () => {
    const stop = new AbortController();
    const now = at('2025-03-04T06:00:00Z');
    const clock = new FakeClock(now);
    const run = await stepRun(['in.csv', ...WINDOW], {
      cwd: dir.path,
      stateDir: join(dir.path, 'state'),
      clock,
      stop: stop.signal,
    });
    // Ctrl-C as the wait begins: the fake clock's sleep then ends without time passing.
    run.io.events.on('waiting', () => stop.abort());
    try {
      const error = await waitForWindow(run).catch((thrown: unknown) => thrown);
      expect(error).toBeInstanceOf(InterruptedError);
      expect((error as InterruptedError).exitCode).toBe(130);
      expect((error as Error).message).toBe(
        'interrupted while waiting for the send window: nothing was sent',
      );
      // The same command waits again.
      expect((error as InterruptedError).next).toEqual({ say: 'Wait for it again' });
      expect(clock.sleeps).toEqual([at('2025-03-04T08:00:00Z')]);
      expect(clock.now()).toBe(now);
    } finally {
      await closeState(run);
    }
  });

  it('is not held up by a stop without a window: there is nothing to wait for', async () => {
    const stop = new AbortController();
    stop.abort();
    const { error } = await wait([], at('2025-03-04T02:00:00Z'), { stop });
    expect(error).toBeUndefined();
  });
});
