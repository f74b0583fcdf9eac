// Renders the send window for people and machines: the wait, the dry run's line, its JSON member.
import type { WindowClosed } from '../../campaign/types.js';
import {
  describeOpening,
  describeWindow,
  formatWait,
  formatWallTime,
  type SendWindow,
  type WindowState,
} from '../../shared/window.js';
import { plural } from './format.js';

/** `waiting for the send window: opens Mon 09:00 Europe/Oslo (in 11 h 2 min)` */
export function renderWaiting(wait: { opensAt: number; now: number; timeZone: string }): string {
  return `waiting for the send window: ${describeOpening(wait.opensAt, wait.now, wait.timeZone)}`;
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

/** `plan.window` of the --dry-run --json document. */
export function windowJson(window: SendWindow, state: WindowState): Record<string, unknown> {
  const iso = (at: number | undefined) =>
    at === undefined ? undefined : new Date(at).toISOString();
  return {
    hours: window.text.hours ?? null,
    days: window.text.days ?? null,
    timeZone: window.timeZone,
    notBefore: iso(window.notBefore) ?? null,
    open: state.open,
    ...(state.open ? { closesAt: iso(state.closesAt) ?? null } : { opensAt: iso(state.opensAt) }),
  };
}

/** `the send window closed (09:00-21:00 Europe/Oslo): 120 sent, 880 left; it opens Tue 09:00 …` */
export function renderWindowClosed(closed: WindowClosed): string {
  return (
    `the send window closed (${closed.window}): ${plural(closed.sent, 'message')} sent, ` +
    `${plural(closed.left, 'record')} left; it ${describeOpening(closed.opensAt, closed.now, closed.timeZone)}`
  );
}
