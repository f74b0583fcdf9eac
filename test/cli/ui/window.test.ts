// The send window as people and machines read it: the wait, the dry run's line and JSON, the close.
import { describe, expect, it } from 'vitest';
import { renderWaiting, renderWindowPlan } from '../../../src/cli/ui/window.js';
import { windowJson } from '../../../src/campaign/documents.js';
import { windowClosedMessage as renderWindowClosed } from '../../../src/campaign/ending.js';
import { windowState, type SendWindow } from '../../../src/shared/window.js';

const at = (iso: string) => Date.parse(iso);
const officeHours: SendWindow = {
  hours: { open: 9 * 60, close: 21 * 60 },
  days: [1, 2, 3, 4, 5],
  timeZone: 'Europe/Oslo',
  text: { hours: '09:00-21:00', days: 'mon-fri' },
};

describe('send window renderers', () => {
  it('the wait', () => {
    expect(
      renderWaiting({
        opensAt: at('2026-11-23T09:00+01:00'),
        now: at('2026-11-22T21:58+01:00'),
        timeZone: 'Europe/Oslo',
      }),
    ).toBe('waiting for the send window: opens Mon 09:00 Europe/Oslo (in 11 h 2 min)');
  });

  it.each([
    [
      '2026-11-23T18:00+01:00',
      'send window: 09:00-21:00 mon-fri Europe/Oslo; open now, closes Mon 21:00 (in 3 h)',
    ],
    [
      '2026-11-28T12:00+01:00',
      'send window: 09:00-21:00 mon-fri Europe/Oslo; closed; opens Mon 09:00 Europe/Oslo (in 45 h)',
    ],
  ])('the dry run at %s', (now, line) => {
    expect(renderWindowPlan(officeHours, windowState(officeHours, at(now)), at(now))).toBe(line);
  });

  it('the dry run as JSON, with a not-before and without', () => {
    const later = { ...officeHours, notBefore: at('2026-12-01T12:00+01:00') };
    const now = at('2026-11-23T18:00+01:00');
    expect(windowJson(later, windowState(later, now))).toEqual({
      hours: '09:00-21:00',
      days: 'mon-fri',
      timeZone: 'Europe/Oslo',
      notBefore: '2026-12-01T11:00:00.000Z',
      open: false,
      opensAt: '2026-12-01T11:00:00.000Z',
    });
    const always: SendWindow = { timeZone: 'UTC', text: {}, notBefore: 0 };
    expect(windowJson(always, windowState(always, now))).toEqual({
      hours: null,
      days: null,
      timeZone: 'UTC',
      notBefore: '1970-01-01T00:00:00.000Z',
      open: true,
      closesAt: null,
    });
  });

  it('the close', () => {
    expect(
      renderWindowClosed({
        sent: 1200,
        left: 1,
        window: '09:00-21:00 Europe/Oslo',
        timeZone: 'Europe/Oslo',
        now: at('2026-11-23T21:00+01:00'),
        opensAt: at('2026-11-24T09:00+01:00'),
      }),
    ).toBe(
      'the send window closed (09:00-21:00 Europe/Oslo): 1,200 messages sent, 1 record left; ' +
        'it opens Tue 09:00 Europe/Oslo (in 12 h)',
    );
  });
});
