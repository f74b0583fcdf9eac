// Send-window arithmetic over a fake clock: hours across midnight, weekdays, not-before, the open
// and close edges, and both daylight-saving changes of Europe/Oslo (29 March and 25 October 2026).
import { describe, expect, it } from 'vitest';
import { ExitCode, OutsideWindowError } from '../../src/shared/errors.js';
import { SendEmitter, type SendEvents } from '../../src/send/events.js';
import { awaitWindow, windowGate } from '../../src/send/schedule.js';
import {
  canonicalTimeZone,
  describeOpening,
  formatWait,
  parseDateTime,
  parseDays,
  parseHours,
  windowState,
  type SendWindow,
} from '../../src/shared/window.js';
import { FakeClock } from '../helpers/clock.js';

const OSLO = 'Europe/Oslo';
/** An instant written with its offset, e.g. `2026-11-23T09:00+01:00`. */
const at = (iso: string): number => {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) throw new Error(`not an instant: ${iso}`);
  return ms;
};

function window(spec: {
  hours?: string;
  days?: string;
  notBefore?: string;
  tz?: string;
}): SendWindow {
  const timeZone = spec.tz ?? OSLO;
  const hours = spec.hours === undefined ? undefined : parseHours(spec.hours);
  const days = spec.days === undefined ? undefined : parseDays(spec.days);
  if (typeof hours === 'string' || typeof days === 'string') throw new Error(JSON.stringify(spec));
  return {
    hours,
    days,
    timeZone,
    notBefore: spec.notBefore === undefined ? undefined : parseDateTime(spec.notBefore, timeZone),
    text: { hours: spec.hours, days: spec.days },
  };
}

/** The state as instants with their Oslo offsets, for readable expectations. */
function state(spec: Parameters<typeof window>[0], now: string): string {
  const s = windowState(window(spec), at(now));
  if (!s.open) return `closed, opens ${new Date(s.opensAt).toISOString()}`;
  return s.closesAt === undefined ? 'open' : `open, closes ${new Date(s.closesAt).toISOString()}`;
}
const iso = (text: string) => new Date(at(text)).toISOString();

describe('windowState', () => {
  // 2026-11-23 is a Monday; Oslo is UTC+1 in winter, UTC+2 in summer.
  it.each([
    // [what, spec, now, expected]
    [
      'inside',
      { hours: '09:00-21:00' },
      '2026-11-23T20:59+01:00',
      `open, closes ${iso('2026-11-23T21:00+01:00')}`,
    ],
    [
      'exactly at the open: open',
      { hours: '09:00-21:00' },
      '2026-11-23T09:00+01:00',
      `open, closes ${iso('2026-11-23T21:00+01:00')}`,
    ],
    [
      'a moment before the open',
      { hours: '09:00-21:00' },
      '2026-11-23T08:59:59.999+01:00',
      `closed, opens ${iso('2026-11-23T09:00+01:00')}`,
    ],
    [
      'exactly at the close: closed till tomorrow',
      { hours: '09:00-21:00' },
      '2026-11-23T21:00+01:00',
      `closed, opens ${iso('2026-11-24T09:00+01:00')}`,
    ],
    [
      'across midnight, before midnight',
      { hours: '22:00-06:00' },
      '2026-11-23T23:30+01:00',
      `open, closes ${iso('2026-11-24T06:00+01:00')}`,
    ],
    [
      'across midnight, after midnight (yesterday’s window)',
      { hours: '22:00-06:00' },
      '2026-11-24T05:59+01:00',
      `open, closes ${iso('2026-11-24T06:00+01:00')}`,
    ],
    [
      'across midnight, at its close',
      { hours: '22:00-06:00' },
      '2026-11-24T06:00+01:00',
      `closed, opens ${iso('2026-11-24T22:00+01:00')}`,
    ],
    [
      'until 24:00',
      { hours: '18:00-24:00' },
      '2026-11-23T23:59+01:00',
      `open, closes ${iso('2026-11-24T00:00+01:00')}`,
    ],
    [
      'mon-fri: Friday at the close waits for Monday',
      { hours: '09:00-21:00', days: 'mon-fri' },
      '2026-11-27T21:00+01:00',
      `closed, opens ${iso('2026-11-30T09:00+01:00')}`,
    ],
    [
      'mon-fri: Saturday noon waits for Monday',
      { hours: '09:00-21:00', days: 'mon-fri' },
      '2026-11-28T12:00+01:00',
      `closed, opens ${iso('2026-11-30T09:00+01:00')}`,
    ],
    [
      'mon,wed,fri: Monday evening waits for Wednesday',
      { hours: '09:00-21:00', days: 'mon,wed,fri' },
      '2026-11-23T22:00+01:00',
      `closed, opens ${iso('2026-11-25T09:00+01:00')}`,
    ],
    [
      'a window belongs to the day it opens: Friday night into Saturday',
      { hours: '22:00-06:00', days: 'fri' },
      '2026-11-28T05:00+01:00',
      `open, closes ${iso('2026-11-28T06:00+01:00')}`,
    ],
    [
      '…and Saturday night is not Friday’s',
      { hours: '22:00-06:00', days: 'fri' },
      '2026-11-28T22:00+01:00',
      `closed, opens ${iso('2026-12-04T22:00+01:00')}`,
    ],
    [
      'sat-sun without hours: the whole weekend, one window',
      { days: 'sat-sun' },
      '2026-11-28T10:00+01:00',
      `open, closes ${iso('2026-11-30T00:00+01:00')}`,
    ],
    [
      'sat-sun, Friday night',
      { days: 'sat-sun' },
      '2026-11-27T23:00+01:00',
      `closed, opens ${iso('2026-11-28T00:00+01:00')}`,
    ],
    [
      'fri-mon wraps the week',
      { days: 'fri-mon', hours: '10:00-11:00' },
      '2026-11-24T12:00+01:00',
      `closed, opens ${iso('2026-11-27T10:00+01:00')}`,
    ],
    [
      'not-before in the future, at an open hour: it opens then',
      { hours: '09:00-21:00', notBefore: '2026-12-01T12:00' },
      '2026-11-23T10:00+01:00',
      `closed, opens ${iso('2026-12-01T12:00+01:00')}`,
    ],
    [
      'not-before before the day’s window: the window’s open',
      { hours: '09:00-21:00', notBefore: '2026-12-01T07:00' },
      '2026-11-23T10:00+01:00',
      `closed, opens ${iso('2026-12-01T09:00+01:00')}`,
    ],
    [
      'not-before passed: only the window counts',
      { hours: '09:00-21:00', notBefore: '2026-11-01T09:00' },
      '2026-11-23T10:00+01:00',
      `open, closes ${iso('2026-11-23T21:00+01:00')}`,
    ],
    [
      'not-before alone, ahead',
      { notBefore: '2026-12-01T09:00' },
      '2026-11-23T10:00+01:00',
      `closed, opens ${iso('2026-12-01T09:00+01:00')}`,
    ],
    [
      'not-before alone, exactly now: open for good',
      { notBefore: '2026-12-01T09:00' },
      '2026-12-01T09:00+01:00',
      'open',
    ],
    [
      'not-before with its own offset',
      { notBefore: '2026-12-01T09:00Z' },
      '2026-11-23T10:00+01:00',
      `closed, opens 2026-12-01T09:00:00.000Z`,
    ],
    [
      'another zone',
      { hours: '09:00-17:00', tz: 'America/New_York' },
      '2026-11-23T12:00-05:00',
      `open, closes ${iso('2026-11-23T17:00-05:00')}`,
    ],
    // Spring: at 02:00 local (01:00 UTC) on 29 March the clocks jump to 03:00.
    [
      'spring: a window opening inside the skipped hour opens when the clocks jump',
      { hours: '02:30-05:00' },
      '2026-03-29T01:00+01:00',
      `closed, opens ${iso('2026-03-29T03:00+02:00')}`,
    ],
    [
      'spring: a window opening at 02:00 too',
      { hours: '02:00-05:00' },
      '2026-03-29T01:59+01:00',
      `closed, opens ${iso('2026-03-29T03:00+02:00')}`,
    ],
    [
      'spring: 01:00-03:00 lasts one real hour',
      { hours: '01:00-03:00' },
      '2026-03-29T01:30+01:00',
      `open, closes ${iso('2026-03-29T03:00+02:00')}`,
    ],
    [
      'spring: across midnight, closing in summer time',
      { hours: '22:00-06:00' },
      '2026-03-28T23:00+01:00',
      `open, closes ${iso('2026-03-29T06:00+02:00')}`,
    ],
    [
      'spring: the day after keeps summer time',
      { hours: '09:00-21:00' },
      '2026-03-29T21:00+02:00',
      `closed, opens ${iso('2026-03-30T09:00+02:00')}`,
    ],
    // Autumn: at 03:00 local (01:00 UTC) on 25 October the clocks go back to 02:00.
    [
      'autumn: a window opening in the repeated hour opens the first time',
      { hours: '02:30-05:00' },
      '2026-10-25T01:00+02:00',
      `closed, opens ${iso('2026-10-25T02:30+02:00')}`,
    ],
    [
      'autumn: a window closing in the repeated hour closes the first time',
      { hours: '22:00-02:30' },
      '2026-10-24T23:00+02:00',
      `open, closes ${iso('2026-10-25T02:30+02:00')}`,
    ],
    [
      'autumn: …and does not open again when 02:10 comes round twice',
      { hours: '22:00-02:30' },
      '2026-10-25T02:10+01:00',
      `closed, opens ${iso('2026-10-25T22:00+01:00')}`,
    ],
    [
      'autumn: 09:00 the same day is in winter time',
      { hours: '09:00-21:00' },
      '2026-10-25T08:00+01:00',
      `closed, opens ${iso('2026-10-25T09:00+01:00')}`,
    ],
  ] as const)('%s', (_what, spec, now, expected) => {
    expect(state(spec, now)).toBe(expected);
  });
});

describe('parsing', () => {
  it.each([
    ['09:00-21:00', { open: 540, close: 1260 }],
    ['9:00 - 21:30', { open: 540, close: 1290 }],
    ['22:00-06:00', { open: 1320, close: 360 }],
    ['00:00-24:00', { open: 0, close: 1440 }],
    ['09:00-09:00', 'must open and close at different times'],
    ['24:00-06:00', 'must be HH:MM-HH:MM, e.g. 09:00-21:00 (22:00-06:00 crosses midnight)'],
    ['09:60-10:00', 'must be HH:MM-HH:MM, e.g. 09:00-21:00 (22:00-06:00 crosses midnight)'],
    ['9-17', 'must be HH:MM-HH:MM, e.g. 09:00-21:00 (22:00-06:00 crosses midnight)'],
  ])('--window %s', (text, expected) => {
    expect(parseHours(text)).toEqual(expected);
  });

  const badDays = 'must be days such as mon-fri, mon,wed,fri or sat-sun';
  it.each([
    ['mon-fri', [1, 2, 3, 4, 5]],
    ['Mon,Wed,FRI', [1, 3, 5]],
    ['sat-sun', [0, 6]],
    ['fri-mon', [0, 1, 5, 6]],
    ['monday, thursday', [1, 4]],
    ['sun', [0]],
    ['mon-', badDays],
    ['mo', badDays],
    ['weekdays', badDays],
    ['mon-wed-fri', badDays],
  ])('--days %s', (text, expected) => {
    expect(parseDays(text)).toEqual(expected);
  });

  it.each([
    ['2026-12-01T09:00', '2026-12-01T08:00:00.000Z'],
    ['2026-12-01 09:00:30', '2026-12-01T08:00:30.000Z'],
    ['2026-12-01', '2026-11-30T23:00:00.000Z'],
    ['2026-07-01T09:00', '2026-07-01T07:00:00.000Z'],
    ['2026-12-01T09:00Z', '2026-12-01T09:00:00.000Z'],
    ['2026-12-01T09:00+05:30', '2026-12-01T03:30:00.000Z'],
    ['2026-12-01T09:00-0300', '2026-12-01T12:00:00.000Z'],
    // A wall time the spring change skips is when the clocks jump; a repeated one its first time.
    ['2026-03-29T02:30', '2026-03-29T01:00:00.000Z'],
    ['2026-10-25T02:30', '2026-10-25T00:30:00.000Z'],
    ['2026-02-30T09:00', undefined],
    ['2026-12-01T24:00', undefined],
    ['1 December', undefined],
  ])('--not-before %s in Europe/Oslo', (text, expected) => {
    const parsed = parseDateTime(text, OSLO);
    expect(parsed === undefined ? undefined : new Date(parsed).toISOString()).toBe(expected);
  });

  it('time zones: IANA names are known and canonical, others are not', () => {
    expect(canonicalTimeZone('Europe/Oslo')).toBe('Europe/Oslo');
    expect(canonicalTimeZone('UTC')).toBe('UTC');
    expect(canonicalTimeZone('Europe/Osloo')).toBeUndefined();
    expect(canonicalTimeZone('+01:00x')).toBeUndefined();
  });

  it('how an opening reads', () => {
    const now = at('2026-11-22T21:58+01:00');
    expect(describeOpening(at('2026-11-23T09:00+01:00'), now, OSLO)).toBe(
      'opens Mon 09:00 Europe/Oslo (in 11 h 2 min)',
    );
    expect(describeOpening(at('2026-12-01T09:00+01:00'), now, OSLO)).toBe(
      'opens Tue 2026-12-01 09:00 Europe/Oslo (in 8 d 11 h)',
    );
    expect([formatWait(40_000), formatWait(60_000), formatWait(3_600_000)]).toEqual([
      'in 40 s',
      'in 1 min',
      'in 1 h',
    ]);
  });
});

describe('waiting for the window, and the question before each batch', () => {
  const evening = window({ hours: '09:00-21:00' });

  it('outside the window: says when it opens, waits until then, and returns open', async () => {
    const clock = new FakeClock(at('2026-11-22T21:58+01:00'));
    const events = new SendEmitter();
    const said: SendEvents['waiting'][0][] = [];
    events.on('waiting', (w) => said.push(w));
    expect(await awaitWindow(evening, { choices: {}, io: { clock, events } })).toBe(true);
    expect(clock.sleeps).toEqual([at('2026-11-23T09:00+01:00')]);
    expect(said).toEqual([
      { opensAt: at('2026-11-23T09:00+01:00'), now: at('2026-11-22T21:58+01:00'), timeZone: OSLO },
    ]);
  });

  it('inside the window: no wait at all', async () => {
    const clock = new FakeClock(at('2026-11-23T10:00+01:00'));
    const result = await awaitWindow(evening, {
      choices: { wait: false },
      io: { clock, events: new SendEmitter() },
    });
    expect(result).toBe(true);
    expect(clock.sleeps).toEqual([]);
  });

  it('--no-wait outside the window: exit 5, saying when it opens', async () => {
    const clock = new FakeClock(at('2026-11-22T21:58+01:00'));
    const error = await awaitWindow(evening, {
      choices: { wait: false },
      io: { clock, events: new SendEmitter() },
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OutsideWindowError);
    expect((error as OutsideWindowError).exitCode).toBe(ExitCode.outsideWindow);
    expect((error as Error).message).toBe(
      'outside the send window (09:00-21:00 Europe/Oslo): it opens Mon 09:00 Europe/Oslo ' +
        '(in 11 h 2 min). Nothing was sent; without --no-wait the run waits for it.',
    );
  });

  it('Ctrl-C cuts the wait short', async () => {
    const clock = new FakeClock(at('2026-11-22T21:58+01:00'));
    const stop = new AbortController();
    stop.abort();
    const open = await awaitWindow(evening, {
      choices: {},
      io: { clock, events: new SendEmitter(), stop: stop.signal },
    });
    expect(open).toBe(false);
    expect(clock.now()).toBe(at('2026-11-22T21:58+01:00'));
  });

  it('the gate says no from the close on', () => {
    const clock = new FakeClock(at('2026-11-23T20:59+01:00'));
    const open = windowGate(evening, clock);
    expect(open()).toBe(true);
    clock.set(at('2026-11-23T20:59:59.999+01:00'));
    expect(open()).toBe(true);
    clock.set(at('2026-11-23T21:00+01:00'));
    expect(open()).toBe(false);
  });
});
