// System errors in words with their code, and which of them refuse a run before it sends.
import { describe, expect, it } from 'vitest';
import {
  describeSystemError,
  isDiskError,
  namedSystemError,
  systemErrorCode,
  unsentStateError,
  UsageError,
} from '../../src/shared/errors.js';

const errno = (message: string, code?: string) => Object.assign(new Error(message), { code });

describe('describeSystemError', () => {
  it.each([
    ['ENOSPC: no space left on device, write', 'ENOSPC', 'no space left on device (ENOSPC)'],
    ["EROFS: read-only file system, open '/s/x'", 'EROFS', 'read-only file system (EROFS)'],
    ["EACCES: permission denied, mkdir '/s'", 'EACCES', 'permission denied (EACCES)'],
    ['EIO: i/o error, fsync', 'EIO', 'i/o error (EIO)'],
    ['cross-device link', 'EXDEV', 'cross-device link (EXDEV)'],
    ['EDQUOT', 'EDQUOT', 'EDQUOT'],
    ['something else broke', undefined, 'something else broke'],
    ['a code that is no errno', 'ERR_SOMETHING', 'a code that is no errno'],
  ])('%s → %s', (message, code, words) => {
    expect(describeSystemError(errno(message, code))).toBe(words);
  });

  it('says what a value that is no error is', () => {
    expect(describeSystemError('plain')).toBe('plain');
  });
});

/** An error as Node gives it for an errno libuv has no name for (EDQUOT, 122, on every line). */
const unnamed = (message: string, code: string, number: number) =>
  Object.assign(new Error(message), { code, errno: number });

describe('an errno Node has no name for', () => {
  const async122 = () =>
    unnamed(
      'Unknown system error -122: Unknown system error -122, fdatasync',
      'Unknown system error -122',
      -122,
    );
  const sync122 = () => unnamed('UNKNOWN: unknown error, write', 'UNKNOWN', -122);

  it.each([
    ['an asynchronous call', async122, 'EDQUOT'],
    ['a synchronous call', sync122, 'EDQUOT'],
    [
      'a named one',
      () => unnamed('ENOSPC: no space left on device, write', 'ENOSPC', -28),
      'ENOSPC',
    ],
    ['an errno with two names', () => unnamed('x', 'UNKNOWN', -11), 'EAGAIN'],
    ['no errno at all', () => new Error('plain'), undefined],
    ['an errno no name has', () => unnamed('UNKNOWN: unknown error', 'UNKNOWN', -9999), undefined],
  ])('is named by its number from %s', (_how, make, code) => {
    expect(systemErrorCode(make())).toBe(code);
  });

  it.each([
    [async122, 'disk quota exceeded (EDQUOT)'],
    [sync122, 'disk quota exceeded (EDQUOT)'],
  ])(
    'is said in words, and refuses a run before it sends as a full disk does (%#)',
    (make, words) => {
      expect(describeSystemError(make())).toBe(words);
      expect(isDiskError(make())).toBe(true);
      expect(unsentStateError(make())?.message).toContain(`could not be written: ${words}`);
      const named = namedSystemError(make());
      expect(named.code).toBe('EDQUOT');
      expect(named.message).toMatch(/^EDQUOT: disk quota exceeded, (fdatasync|write)$/);
    },
  );

  it('leaves a named error as it was', () => {
    const error = unnamed('ENOSPC: no space left on device, write', 'ENOSPC', -28);
    expect(namedSystemError(error)).toBe(error);
    expect(error.message).toBe('ENOSPC: no space left on device, write');
  });
});

describe('unsentStateError', () => {
  it('turns a disk that refuses into exit 2, nothing sent, with the cause', () => {
    const cause = errno('ENOSPC: no space left on device, write', 'ENOSPC');
    const refusal = unsentStateError(cause);
    expect(refusal).toBeInstanceOf(UsageError);
    expect(refusal).toMatchObject({
      exitCode: 2,
      code: 'state-unwritable',
      cause,
      message:
        'campaign state could not be written: no space left on device (ENOSPC); nothing was sent. ' +
        'Make room in the state directory and run again.',
    });
  });

  it.each([
    ['ENOSPC', 'Make room in the state directory and run again.'],
    ['EDQUOT', 'Make room in the state directory and run again.'],
    [
      'EIO',
      'The disk under the state directory failed a write (an input/output error, not a full disk)',
    ],
    ['EROFS', 'Make the state directory writable for this user (it is read-only'],
    ['EACCES', 'Make the state directory writable for this user (it is read-only'],
  ])('%s: the advice fits what the disk said', (code, advice) => {
    const refusal = unsentStateError(errno(`${code}: failed, write`, code));
    expect(refusal?.message).toContain(advice);
    if (code !== 'ENOSPC' && code !== 'EDQUOT') expect(refusal?.message).not.toContain('Make room');
  });

  it.each([
    ['an error of sms-send', new UsageError('already')],
    ['a missing file', errno('ENOENT: no such file', 'ENOENT')],
    ['a bug', new TypeError('x is undefined')],
  ])('leaves %s alone', (_name, error) => {
    expect(unsentStateError(error)).toBeUndefined();
  });
});
