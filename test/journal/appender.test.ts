// The line appender: order, grouping, and which groups are synced.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LineAppender } from '../../src/journal/appender.js';
import { DiskFile, injectDiskFault } from '../../src/shared/disk.js';
import { tempDir } from '../helpers/files.js';

let dir: Awaited<ReturnType<typeof tempDir>>;
beforeAll(async () => {
  dir = await tempDir();
});
afterAll(() => dir.remove());
afterEach(() => injectDiskFault(undefined));

let files = 0;

/**
 * A real file whose syncs are recorded, through the disk layer, with what the file held when each
 * was asked for, so the calls read as the writes and syncs in order: `calls()` turns the growth
 * between them into writes.
 */
async function recordedFile() {
  const path = join(dir.path, `lines-${++files}`);
  const handle = await DiskFile.open(path, 'w');
  const events: string[] = [];
  let seen = '';
  const wrote = () => {
    const text = readFileSync(path, 'utf8');
    if (text.length > seen.length) events.push(`write ${JSON.stringify(text.slice(seen.length))}`);
    seen = text;
  };
  injectDiskFault((op, at) => {
    if (at !== path || (op !== 'datasync' && op !== 'sync')) return undefined;
    wrote();
    events.push(op);
    return undefined;
  });
  return {
    handle,
    path,
    calls: () => {
      wrote();
      return [...events];
    },
  };
}

describe('LineAppender', () => {
  it('syncs each group before its appends resolve, grouping what arrives meanwhile', async () => {
    const { calls, handle } = await recordedFile();
    const lines = new LineAppender(handle, true);
    const first = lines.append('a\n');
    await first;
    expect(calls()).toEqual(['write "a\\n"', 'datasync']);
    // Appended while a sync is under way: one write and one sync for both.
    const second = lines.append('b\n');
    await Promise.resolve();
    const rest = [second, lines.append('c\n'), lines.append('d\n')];
    await Promise.all(rest);
    expect(calls()).toEqual([
      'write "a\\n"',
      'datasync',
      'write "b\\n"',
      'datasync',
      'write "c\\nd\\n"',
      'datasync',
    ]);
    await lines.close();
  });

  it('groups the lines appended in one turn into one write and one sync', async () => {
    const { calls, handle } = await recordedFile();
    const lines = new LineAppender(handle, true);
    await Promise.all([lines.append('a\n'), lines.append('b\n'), lines.append('c\n')]);
    expect(calls()).toEqual(['write "a\\nb\\nc\\n"', 'datasync']);
    await lines.close();
  });

  it('writes a { sync: false } line without a sync of its own, and syncs it with the next synced group', async () => {
    const { calls, handle } = await recordedFile();
    const lines = new LineAppender(handle, true);
    await lines.append('done 1\n', { sync: false });
    expect(calls()).toEqual(['write "done 1\\n"']);
    const done = lines.append('done 2\n', { sync: false });
    const send = lines.append('send 3\n');
    await Promise.all([done, send]);
    expect(calls()).toEqual(['write "done 1\\n"', 'write "done 2\\nsend 3\\n"', 'datasync']);
    // Closing syncs what no group synced, and only that.
    await lines.append('done 3\n', { sync: false });
    await lines.close();
    expect(calls().slice(-2)).toEqual(['write "done 3\\n"', 'sync']);
  });

  it('never syncs when made without sync', async () => {
    const { calls, handle } = await recordedFile();
    const lines = new LineAppender(handle, false);
    await Promise.all([lines.append('x\n'), lines.append('y\n')]);
    expect(calls()).toEqual(['write "x\\ny\\n"']);
    await lines.append('z\n');
    expect(calls()).toEqual(['write "x\\ny\\n"', 'write "z\\n"']);
    await lines.close();
  });

  it('rejects the appends of a group whose write fails', async () => {
    const { handle } = await recordedFile();
    const lines = new LineAppender(handle, false);
    await handle.close();
    await expect(lines.append('lost\n')).rejects.toMatchObject({
      name: 'RangeError',
      code: 'ERR_OUT_OF_RANGE',
    });
  });
});
