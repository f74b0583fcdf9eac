// Send-window arithmetic, pure: hours, weekdays and a not-before instant in an IANA time zone.
// Wall times are read with Intl.DateTimeFormat, so daylight-saving changes follow the zone's rules.

const MINUTE = 60_000;
const DAY = 86_400_000;

/** When a campaign may send. Without hours or days only `notBefore` holds it back. */
export interface SendWindow {
  /** Minutes after midnight it opens and closes; a close at or before the open crosses midnight. */
  hours?: { open: number; close: number };
  /** Weekdays (0 Sunday … 6 Saturday) on which the window opens. */
  days?: readonly number[];
  timeZone: string;
  /** Nothing is sent before this instant (ms since the epoch). */
  notBefore?: number;
  /** As the user wrote them, for messages: `09:00-21:00`, `mon-fri`. */
  text: { hours?: string; days?: string };
}

export type WindowState =
  | { open: true; /** When it closes, when that is within the next week. */ closesAt?: number }
  | { open: false; opensAt: number };

const DAY_NAMES = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] as const;
const FULL_DAY_NAMES = [
  'sunday',
  'monday',
  'tuesday',
  'wednesday',
  'thursday',
  'friday',
  'saturday',
];

/** `09:00-21:00` (or `22:00-06:00` across midnight; `24:00` only as a close), or the reason it is not. */
export function parseHours(text: string): { open: number; close: number } | string {
  const match = /^\s*(\d{1,2}):(\d{2})\s*-\s*(\d{1,2}):(\d{2})\s*$/.exec(text);
  const reason = 'must be HH:MM-HH:MM, e.g. 09:00-21:00 (22:00-06:00 crosses midnight)';
  if (!match) return reason;
  const [oh, om, ch, cm] = match.slice(1).map(Number) as [number, number, number, number];
  if (oh > 23 || om > 59 || cm > 59 || ch > 24 || (ch === 24 && cm > 0)) return reason;
  const open = oh * 60 + om;
  const close = ch * 60 + cm;
  if (open === close) return 'must open and close at different times';
  return { open, close };
}

/** `mon-fri`, `mon,wed,fri`, `sat-sun`, `fri-mon` (ranges wrap): weekdays, 0 Sunday … 6 Saturday. */
export function parseDays(text: string): number[] | string {
  const reason = 'must be days such as mon-fri, mon,wed,fri or sat-sun';
  const days = new Set<number>();
  for (const part of text.split(',')) {
    const [from, to, ...rest] = part.split('-').map((d) => dayNumber(d));
    if (from === undefined || rest.length > 0 || to === null || from === null) return reason;
    const last = to ?? from;
    for (let d = from; ; d = (d + 1) % 7) {
      days.add(d);
      if (d === last) break;
    }
  }
  return [...days].sort((a, b) => a - b);
}

/** A day's number, null when it names no day, undefined for nothing at all (no range end). */
function dayNumber(text: string | undefined): number | null | undefined {
  if (text === undefined) return undefined;
  const name = text.trim().toLowerCase();
  if (name.length < 2) return null;
  const at = FULL_DAY_NAMES.findIndex((full) => full.startsWith(name) && name.length >= 3);
  return at === -1 ? null : at;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

/** The zone's canonical IANA name, or undefined when Intl does not know it. */
export function canonicalTimeZone(name: string): string | undefined {
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
}

/** The machine's zone (TZ, else the system's). */
export function machineTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone;
}

/**
 * The wall time at `at` in the zone, as milliseconds of a UTC calendar ("naive" local time), so
 * calendar arithmetic can use Date's UTC methods.
 */
function wallTime(at: number, timeZone: string): number {
  const parts: Record<string, number> = {};
  const second = Math.floor(at / 1000) * 1000;
  for (const p of formatter(timeZone).formatToParts(second)) {
    if (p.type !== 'literal') parts[p.type] = Number(p.value);
  }
  const naive = Date.UTC(
    parts.year!,
    parts.month! - 1,
    parts.day,
    parts.hour,
    parts.minute,
    parts.second,
  );
  return naive + (at - second);
}

/** The zone's offset from UTC at `at`, in ms. */
function offsetAt(at: number, timeZone: string): number {
  return wallTime(at, timeZone) - at;
}

/**
 * The first instant whose wall time in the zone is at or after `wall` (naive ms): the earlier of
 * the two in the hour repeated in autumn, and the end of the gap for a wall time skipped in spring.
 */
function instantAtOrAfter(wall: number, timeZone: string): number {
  const offsets = new Set([offsetAt(wall - DAY, timeZone), offsetAt(wall + DAY, timeZone)]);
  const exact = [...offsets].map((o) => wall - o).filter((t) => offsetAt(t, timeZone) === wall - t);
  if (exact.length > 0) return Math.min(...exact);
  // In the gap: the instant the clocks jumped, found by halving (at most a day to search).
  let low = wall - Math.max(...offsets);
  let high = wall - Math.min(...offsets);
  while (high - low > 1) {
    const mid = Math.floor((low + high) / 2);
    if (wallTime(mid, timeZone) >= wall) high = mid;
    else low = mid;
  }
  return high;
}

/**
 * `2026-12-01T09:00` (seconds optional, or a date alone for midnight) as a wall time in the zone,
 * or with its own offset (`Z`, `+01:00`) as that instant; undefined when it is no such date-time.
 */
export function parseDateTime(text: string, timeZone: string): number | undefined {
  const match =
    /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2}))?)?(Z|[+-]\d{2}(?::?\d{2})?)?$/i.exec(
      text.trim(),
    );
  if (!match) return undefined;
  const [y, mo, d, h = 0, mi = 0, s = 0] = match
    .slice(1, 7)
    .map((n) => (n === undefined ? undefined : Number(n))) as number[];
  const wall = Date.UTC(y!, mo! - 1, d, h, mi, s);
  const back = new Date(wall);
  if (
    y! < 1970 ||
    back.getUTCMonth() !== mo! - 1 ||
    back.getUTCDate() !== d ||
    h > 23 ||
    mi > 59 ||
    s > 59
  ) {
    return undefined;
  }
  const zone = match[7];
  if (zone === undefined) return instantAtOrAfter(wall, timeZone);
  if (zone.toUpperCase() === 'Z') return wall;
  const sign = zone.startsWith('-') ? -1 : 1;
  const digits = zone.slice(1).replace(':', '');
  const offset = (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2) || 0)) * MINUTE;
  return wall - sign * offset;
}

/**
 * Whether the window is open at `now`, and until when; or when it next opens. A window belongs
 * to the day it opens on (`--days fri` with 22:00-06:00 sends Friday night into Saturday), and
 * windows that meet (`sat-sun` with no hours) count as one.
 */
export function windowState(window: SendWindow, now: number): WindowState {
  const from = Math.max(now, window.notBefore ?? now);
  if (!window.hours && !window.days) {
    return from === now ? { open: true } : { open: false, opensAt: from };
  }
  const { timeZone } = window;
  const hours = window.hours ?? { open: 0, close: 24 * 60 };
  const days = window.days ? new Set(window.days) : undefined;
  const today = Math.floor(wallTime(from, timeZone) / DAY) * DAY;
  let current: [open: number, close: number] | undefined;
  // From yesterday (a window across midnight may still be open) to a week ahead.
  for (let i = -1; i <= 8; i++) {
    const day = today + i * DAY;
    if (days && !days.has(new Date(day).getUTCDay())) continue;
    const open = instantAtOrAfter(day + hours.open * MINUTE, timeZone);
    const closeDay = hours.close <= hours.open ? day + DAY : day;
    const close = instantAtOrAfter(closeDay + hours.close * MINUTE, timeZone);
    if (close <= from) continue;
    if (!current) current = [open, close];
    else if (open <= current[1]) current[1] = Math.max(current[1], close);
    else break;
  }
  // Any day of the week has a window within the eight days looked at.
  const [open, close] = current!;
  if (open > from) return { open: false, opensAt: open };
  if (from > now) return { open: false, opensAt: from };
  return { open: true, closesAt: close };
}

/** `09:00-21:00 mon-fri Europe/Oslo`, `not before 2026-12-01 09:00 Europe/Oslo`: for messages. */
export function describeWindow(window: SendWindow): string {
  const parts = [window.text.hours, window.text.days].filter((p) => p !== undefined);
  if (window.notBefore !== undefined) {
    parts.push(`not before ${formatWallTime(window.notBefore, window.timeZone, true)}`);
  }
  return `${parts.join(' ')} ${window.timeZone}`;
}

/** `Mon 09:00` (with the date, `Tue 2026-12-01 09:00`, when it is not within the coming week). */
export function formatWallTime(at: number, timeZone: string, withDate = false): string {
  const wall = new Date(wallTime(at, timeZone));
  const pad = (n: number) => String(n).padStart(2, '0');
  const day = DAY_NAMES[wall.getUTCDay()]!;
  const date = `${wall.getUTCFullYear()}-${pad(wall.getUTCMonth() + 1)}-${pad(wall.getUTCDate())}`;
  const time = `${pad(wall.getUTCHours())}:${pad(wall.getUTCMinutes())}`;
  const name = day[0]!.toUpperCase() + day.slice(1);
  return withDate ? `${name} ${date} ${time}` : `${name} ${time}`;
}

/** `in 11 h 2 min`, `in 40 s`, `in 3 d 4 h`: how long until a moment, for a person. */
export function formatWait(ms: number): string {
  const minutes = Math.ceil(ms / MINUTE);
  if (ms < MINUTE) return `in ${Math.max(0, Math.ceil(ms / 1000))} s`;
  if (minutes < 60) return `in ${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `in ${hours} h${minutes % 60 ? ` ${minutes % 60} min` : ''}`;
  const days = Math.floor(hours / 24);
  return `in ${days} d${hours % 24 ? ` ${hours % 24} h` : ''}`;
}

/** `opens Mon 09:00 Europe/Oslo (in 11 h 2 min)`. */
export function describeOpening(opensAt: number, now: number, timeZone: string): string {
  const far = opensAt - now > 6 * DAY;
  return `opens ${formatWallTime(opensAt, timeZone, far)} ${timeZone} (${formatWait(opensAt - now)})`;
}
