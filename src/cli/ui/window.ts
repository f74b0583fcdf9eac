// Renders the send window for people: the wait, and the dry run's line.
import {
  describeOpening,
  describeWindow,
  formatWait,
  formatWallTime,
  type SendWindow,
  type WindowState,
} from '../../shared/window.js';

/**
 * `waiting for the send window: opens Mon 09:00 Europe/Oslo (in 11 h 2 min)`; within `width`
 * columns, without its preamble.
 */
export function renderWaiting(
  wait: { opensAt: number; now: number; timeZone: string },
  width = Infinity,
): string {
  const opening = describeOpening(wait.opensAt, wait.now, wait.timeZone);
  const text = `waiting for the send window: ${opening}`;
  return text.length <= width ? text : `send window ${opening}`;
}

/** The dry run's line: `send window: 09:00-21:00 mon-fri Europe/Oslo; open now, closes Mon 21:00 (in 3 h)` */
export function renderWindowPlan(window: SendWindow, state: WindowState, now: number): string {
  const when = state.open
    ? state.closesAt === undefined
      ? 'open now'
      : `open now, closes ${formatWallTime(state.closesAt, window.timeZone)} (${formatWait(state.closesAt - now)})`
    : `closed; ${describeOpening(state.opensAt, now, window.timeZone)}`;
  return `send window: ${describeWindow(window)}; ${when}`;
}
