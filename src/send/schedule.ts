// The send window at run time: waiting for it to open before the first batch, and the question the
// send loop asks before each next one. Time comes from the injected clock only.
import { OutsideWindowError } from '../shared/errors.js';
import type { Clock } from '../shared/clock.js';
import type { SendEmitter } from './events.js';
import { describeOpening, describeWindow, windowState, type SendWindow } from '../shared/window.js';

/** The part of a run the wait reads: whether to wait at all, and its io. */
export interface WaitingRun {
  /** `wait: false`: outside the window, end at once (exit 5) instead of waiting. */
  choices: { wait?: boolean };
  io: { clock: Clock; events: SendEmitter; stop?: AbortSignal };
}

/**
 * Returns once the window is open (true), or when the run's stop cut the wait short (false).
 * With `wait: false`, a closed window ends the run at once: exit 5, nothing sent.
 */
export async function awaitWindow(window: SendWindow, run: WaitingRun): Promise<boolean> {
  const { clock, events, stop: signal } = run.io;
  for (;;) {
    if (signal?.aborted) return false;
    const now = clock.now();
    const state = windowState(window, now);
    if (state.open) return true;
    if (run.choices.wait === false) {
      throw new OutsideWindowError(
        `outside the send window (${describeWindow(window)}): it ` +
          `${describeOpening(state.opensAt, now, window.timeZone)}. Nothing was sent; ` +
          'without --no-wait the run waits for it.',
      );
    }
    events.emit('waiting', { opensAt: state.opensAt, now, timeZone: window.timeZone });
    await clock.sleepUntil(state.opensAt, signal);
  }
}

/**
 * Whether a new batch may be taken now. Cheap per batch: the window's arithmetic runs again only
 * once the close it last found has come.
 */
export function windowGate(window: SendWindow, clock: Clock): () => boolean {
  let openUntil = -Infinity;
  return () => {
    const now = clock.now();
    if (now < openUntil) return true;
    const state = windowState(window, now);
    if (!state.open) return false;
    openUntil = state.closesAt ?? Infinity;
    return true;
  };
}
