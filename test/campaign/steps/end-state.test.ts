// How a run stopped by its state says why: which failure's reason stands when several come, and how a disk's, a database's and a takeover's are worded.
import { describe, expect, it } from 'vitest';
import { reportReason, stateReason, stopFor } from '../../../src/campaign/steps/end-state.js';
import { HoldLostError } from '../../../src/journal/store.js';
import type { SendOutcome } from '../../../src/send/types.js';
import { StateStoreError } from '../../../src/shared/errors.js';

type Stopped = NonNullable<SendOutcome['stopped']>;

/** A system error as Node words it: its code, its words, its call. */
function errno(code: string, words: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: ${words}, write`), { code, syscall: 'write' });
}

const disk = errno('ENOSPC', 'no space left on device');
const lost = new HoldLostError('c1');
const database = new StateStoreError('the database did not answer', false, 'start it');
const DISK_REASON = 'campaign state could not be written: no space left on device (ENOSPC)';

const gatewayStop: Stopped = { reason: 'HTTP 401', authRefused: true };
const diskStop: Stopped = { reason: 'first disk', authRefused: false, stateUnwritable: true };
const takenStop: Stopped = { ...diskStop, reason: 'first takeover', takenOver: true };
const storeStop: Stopped = { ...diskStop, reason: 'first database', storeDown: true };

const fresh = (words: string, extra: Partial<Stopped> = {}): Stopped => ({
  reason: words,
  authRefused: false,
  stateUnwritable: true,
  ...extra,
});

describe('stopFor', () => {
  // [case, the stop before, the failure now, the stop after]
  const cases: [string, Stopped | undefined, Error, Stopped][] = [
    ['a run not stopped stops on a full disk', undefined, disk, fresh(DISK_REASON)],
    [
      'a run not stopped stops on a takeover (exit 4)',
      undefined,
      lost,
      fresh(lost.message, { takenOver: true }),
    ],
    [
      'a run not stopped stops on its database',
      undefined,
      database,
      fresh(database.message, { storeDown: true }),
    ],
    ['a stop on the gateway stands whatever the state did', gatewayStop, lost, gatewayStop],
    ['a takeover stands against a disk', takenStop, disk, takenStop],
    ['a takeover stands against another takeover', takenStop, lost, takenStop],
    ['a database stop stands against a disk', storeStop, disk, storeStop],
    ['a database stop stands against the database again', storeStop, database, storeStop],
    [
      'a takeover, once known, tells a database stop truer',
      storeStop,
      lost,
      fresh(lost.message, { takenOver: true }),
    ],
    ['a disk stop stands against another disk failure', diskStop, disk, diskStop],
    [
      'a takeover tells a disk stop truer',
      diskStop,
      lost,
      fresh(lost.message, { takenOver: true }),
    ],
    [
      'a database tells a disk stop truer',
      diskStop,
      database,
      fresh(database.message, { storeDown: true }),
    ],
  ];

  it.each(cases)('%s', (_name, before, failure, after) => {
    const outcome: SendOutcome = {
      interrupted: false,
      notSent: 3,
      ...(before ? { stopped: { ...before } } : {}),
    };
    stopFor(outcome, failure);
    expect(outcome.stopped).toEqual(after);
    // Only the stop is the state's to change: what the loop counted stays.
    expect(outcome).toMatchObject({ interrupted: false, notSent: 3 });
  });

  it('takes the reason it is given over the failure’s own words', () => {
    const outcome: SendOutcome = { interrupted: true, notSent: 0 };
    stopFor(outcome, disk, 'the report r.csv could not be written: x');
    expect(outcome.stopped).toEqual(fresh('the report r.csv could not be written: x'));
  });
});

describe('stateReason and reportReason', () => {
  const cases: [string, unknown, string][] = [
    ['a database in its own words', database, 'the database did not answer'],
    ['a takeover in its own words', lost, 'another run took campaign c1 over'],
    ['a full disk, described', disk, DISK_REASON],
    [
      'a read-only disk, described',
      errno('EROFS', 'read-only file system'),
      'campaign state could not be written: read-only file system (EROFS)',
    ],
    [
      'an error without a code, by its message',
      new Error('torn line'),
      'campaign state could not be written: torn line',
    ],
    ['what is not an error, as text', 'odd', 'campaign state could not be written: odd'],
  ];

  it.each(cases)('stateReason: %s', (_name, error, reason) => {
    expect(stateReason(error)).toBe(reason);
  });

  it('reportReason names the report and the disk’s error', () => {
    expect(reportReason('/r/report.csv', errno('EIO', 'i/o error'))).toBe(
      'the report /r/report.csv could not be written: i/o error (EIO)',
    );
  });
});
