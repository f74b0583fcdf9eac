// The line appender: order, grouping, and which groups are synced.
import type { FileHandle } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { LineAppender } from '../../src/journal/appender.js';

/** A file handle that records writes and syncs in order; writes settle on the next tick. */
function fakeHandle() {
  const calls: string[] = [];
  const handle = {
    write: async (text: string) => {
      await new Promise((resolve) => setImmediate(resolve));
      calls.push(`write ${JSON.stringify(text)}`);
    },
    datasync: () => Promise.resolve(void calls.push('datasync')),
    sync: () => Promise.resolve(void calls.push('sync')),
    close: () => Promise.resolve(void calls.push('close')),
  };
  return { calls, handle: handle as unknown as FileHandle };
}

describe('LineAppender', () => {
  it('syncs each group before its appends resolve, grouping what arrives meanwhile', async () => {
    const { calls, handle } = fakeHandle();
    const lines = new LineAppender(handle, true);
    const first = lines.append('a\n');
    const rest = [lines.append('b\n'), lines.append('c\n')];
    await first;
    expect(calls).toEqual(['write "a\\n"', 'datasync']);
    await Promise.all(rest);
    expect(calls).toEqual(['write "a\\n"', 'datasync', 'write "b\\nc\\n"', 'datasync']);
  });

  it('writes a { sync: false } line without a sync of its own, and syncs it with the next synced group', async () => {
    const { calls, handle } = fakeHandle();
    const lines = new LineAppender(handle, true);
    await lines.append('done 1\n', { sync: false });
    expect(calls).toEqual(['write "done 1\\n"']);
    const done = lines.append('done 2\n', { sync: false });
    const send = lines.append('send 3\n');
    await Promise.all([done, send]);
    expect(calls).toEqual([
      'write "done 1\\n"',
      'write "done 2\\n"',
      'write "send 3\\n"',
      'datasync',
    ]);
    await lines.close();
    expect(calls.slice(-2)).toEqual(['sync', 'close']);
  });

  it('never syncs when made without sync', async () => {
    const { calls, handle } = fakeHandle();
    const lines = new LineAppender(handle, false);
    await Promise.all([lines.append('x\n'), lines.append('y\n')]);
    expect(calls.filter((c) => c === 'datasync')).toEqual([]);
  });
});
