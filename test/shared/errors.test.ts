// System errors in words with their code, and which of them refuse a run before it sends.
import { describe, expect, it } from 'vitest';
import { describeSystemError, unsentStateError, UsageError } from '../../src/shared/errors.js';

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
        'Make room in the state directory (or make it writable) and run again.',
    });
  });

  it.each([
    ['an error of sms-send', new UsageError('already')],
    ['a missing file', errno('ENOENT: no such file', 'ENOENT')],
    ['a bug', new TypeError('x is undefined')],
  ])('leaves %s alone', (_name, error) => {
    expect(unsentStateError(error)).toBeUndefined();
  });
});
