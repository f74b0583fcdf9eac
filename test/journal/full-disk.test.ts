// Writes on a full or failing disk: a torn write is cut off, intents are refused from the first
// failure on, answers are held and written again on a fresh descriptor, a failed sync is never
// taken for a good one; and a spool that cannot be written is an error the operator can act on.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LineAppender } from '../../src/journal/appender.js';
import { JournalWriter } from '../../src/journal/folder/journal.js';
import { readJournalFile } from '../../src/journal/reading.js';
import { DiskFile, injectDiskFault, type DiskOp } from '../../src/shared/disk.js';
import { ExitCode, UsageError } from '../../src/shared/errors.js';
import { SpoolWriter } from '../../src/validate/spool.js';
import { tempDir } from '../helpers/files.js';

let dir: Awaited<ReturnType<typeof tempDir>>;
beforeAll(async () => {
  dir = await tempDir();
});
afterAll(() => dir.remove());
afterEach(() => injectDiskFault(undefined));

let files = 0;
const fresh = () => join(dir.path, `f-${++files}`);

function errno(code: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: failed, write`), { code });
}

/**
 * The next `op` on `path` fails with `code`; a write puts its first 20 bytes in the file first,
 * as one on a disk that fills up does. With `sticky`, every later one fails too, until cleared.
 */
function failNext(path: string, op: DiskOp, code: string, sticky = false): NodeJS.ErrnoException {
  const error = errno(code);
  let used = false;
  injectDiskFault((seen, at) => {
    if (at !== path || seen !== op || (used && !sticky)) return undefined;
    used = true;
    return { error, written: 20 };
  });
  return error;
}

const START = '{"t":"start","v":2,"campaign":"c","run":1,"at":"2026-11-23T00:00:00Z"}\n';

describe('LineAppender on a full disk', () => {
  it('cuts a half-written group back off and refuses every later append that is not kept', async () => {
    const path = fresh();
    const lines = new LineAppender(await DiskFile.open(path, 'a+'), true);
    await lines.append(START);
    const full = failNext(path, 'write', 'ENOSPC');
    await expect(lines.append('{"t":"batch","b":"1:1","r":[1,3]}\n')).rejects.toBe(full);
    // The space comes back: a later batch must still not be recorded (and so not be sent).
    await expect(lines.append('{"t":"batch","b":"1:2","r":[4,4]}\n')).rejects.toBe(full);
    await expect(lines.append('more\n', { sync: false })).rejects.toBe(full);
    expect(readFileSync(path, 'utf8')).toBe(START);
    expect(lines.failed).toBe(full);
    await expect(lines.close()).resolves.toBeUndefined();
    const state = await readJournalFile(path);
    expect(state?.sent).toBe(false);
  });

  it('rejects the lines appended while the failing group was written, too', async () => {
    const path = fresh();
    const lines = new LineAppender(await DiskFile.open(path, 'a+'), true);
    await lines.append('a\n');
    const full = failNext(path, 'write', 'ENOSPC');
    const first = lines.append(`${'b'.repeat(40)}\n`);
    await Promise.resolve();
    const waiting = lines.append('c\n');
    await expect(first).rejects.toBe(full);
    await expect(waiting).rejects.toBe(full);
    await lines.close();
    expect(readFileSync(path, 'utf8')).toBe('a\n');
  });

  it('holds a kept line whose write failed, and writes it again once there is room', async () => {
    const path = fresh();
    const lines = new LineAppender(await DiskFile.open(path, 'a+'), true);
    await lines.append('intent 1\n');
    failNext(path, 'write', 'ENOSPC', true);
    // An answer: resolved (held), never refused, so the send loop goes on to report it.
    await expect(lines.append('answer 1\n', { sync: false, keep: true })).resolves.toBeUndefined();
    await lines.append('answer 2\n', { sync: false, keep: true });
    expect(lines.heldLines).toEqual(['answer 1\n', 'answer 2\n']);
    expect(readFileSync(path, 'utf8')).toBe('intent 1\n');
    // Still full: the lines stay held, and close() says so.
    expect(await lines.rewrite()).toBe(false);
    expect(lines.heldLines).toHaveLength(2);
    injectDiskFault(undefined);
    expect(await lines.rewrite()).toBe(true);
    expect(lines.heldLines).toEqual([]);
    expect(readFileSync(path, 'utf8')).toBe('intent 1\nanswer 1\nanswer 2\n');
    // Intents stay refused after the rewrite: nothing more is sent by this run.
    await expect(lines.append('intent 2\n')).rejects.toMatchObject({ code: 'ENOSPC' });
    await lines.close();
  });

  it('close() refuses while kept lines are held, so nobody takes them for written', async () => {
    const path = fresh();
    const lines = new LineAppender(await DiskFile.open(path, 'a+'), true);
    const full = failNext(path, 'write', 'EDQUOT', true);
    await lines.append('answer\n', { sync: false, keep: true });
    await expect(lines.close()).rejects.toBe(full);
  });

  it('a log of delivery reports (not synced) cuts the torn part off and goes on', async () => {
    const path = fresh();
    const lines = new LineAppender(await DiskFile.open(path, 'a'), false);
    await lines.append('one\n');
    const full = failNext(path, 'write', 'ENOSPC');
    await expect(lines.append(`${'x'.repeat(40)}\n`)).rejects.toBe(full);
    await lines.append('three\n');
    await lines.close();
    expect(readFileSync(path, 'utf8')).toBe('one\nthree\n');
  });
});

describe('LineAppender when a sync fails', () => {
  it('cuts back to the last good sync, holds the answers it covered, and never syncs that descriptor again', async () => {
    const path = fresh();
    const file = await DiskFile.open(path, 'a+');
    const lines = new LineAppender(file, true);
    await lines.append('intent 1\n');
    // Written, not synced: a later failed sync covers it.
    await lines.append('answer 1\n', { sync: false, keep: true });
    const syncs: string[] = [];
    let failed = false;
    injectDiskFault((op, at) => {
      if (at !== path || op !== 'datasync') return undefined;
      syncs.push(op);
      if (failed) return undefined;
      failed = true;
      return { error: errno('EIO') };
    });
    await expect(lines.append('intent 2\n')).rejects.toMatchObject({ code: 'EIO' });
    // What the failed sync covered is gone from the file: only the synced intent remains.
    expect(readFileSync(path, 'utf8')).toBe('intent 1\n');
    expect(lines.heldLines).toEqual(['answer 1\n']);
    expect(await lines.rewrite()).toBe(true);
    // The answer is back, the intent whose sync failed is not (its batch was never sent).
    expect(readFileSync(path, 'utf8')).toBe('intent 1\nanswer 1\n');
    // One failed sync, then the fresh descriptor's: the old one was not asked again.
    expect(syncs).toEqual(['datasync', 'datasync']);
    await lines.close();
  });
});

describe('JournalWriter on a full disk', () => {
  it('refuses intents and holds results, which unrecorded() names until rewrite() keeps them', async () => {
    const path = fresh();
    const journal = await JournalWriter.open(path);
    await journal.append({ t: 'batch', b: '1:1', r: [1, 2] });
    failNext(path, 'write', 'ENOSPC', true);
    await expect(journal.append({ t: 'batch', b: '1:2', r: [3, 4] })).rejects.toMatchObject({
      code: 'ENOSPC',
    });
    await journal.append({ t: 'posted', b: '1:1' });
    const result = {
      t: 'result' as const,
      b: '1:1',
      r: [1, 2],
      o: [[2, 'accepted']] as [number, string][],
      a: [[2, 1]] as [number, number][],
      c: [[2, 0]] as [number, number][],
    };
    await journal.append(result);
    expect(journal.failure).toMatchObject({ code: 'ENOSPC' });
    expect(journal.unrecorded()).toEqual([{ t: 'posted', b: '1:1' }, result]);
    injectDiskFault(undefined);
    expect(await journal.rewrite()).toBe(true);
    await journal.close();
    const state = await readJournalFile(path);
    expect(state?.results.outcome(1)).toBe('accepted');
    expect(state?.results.outcome(2)).toBe('accepted');
    expect(state?.inFlight.size).toBe(0);
  });
});

describe('SpoolWriter on a disk that fails', () => {
  it.each([
    ['ENOSPC', 'Make room in the state directory (SMS_SEND_STATE_DIR) and run again.'],
    [
      'EIO',
      'The disk under the state directory (SMS_SEND_STATE_DIR) failed a write (an input/output ' +
        'error, not a full disk): check it (the system log says more) or use a folder on another ' +
        'disk, then run again.',
    ],
  ])(
    '%s: says which file, that nothing was sent and what to do, with exit 2',
    async (code, advice) => {
      const path = fresh();
      const spool = await SpoolWriter.create(path);
      failNext(path, 'write', code);
      let thrown: unknown;
      try {
        spool.addBytes(Buffer.from('F\t{}\n'.repeat(10)));
      } catch (error) {
        thrown = error;
      }
      await spool.close();
      expect(thrown).toBeInstanceOf(UsageError);
      expect(thrown).toMatchObject({ exitCode: ExitCode.usage, code: 'state-unwritable' });
      expect((thrown as Error).message).toBe(
        `cannot write the campaign's spool ${path}: failed (${code}). Nothing was sent. ${advice}`,
      );
    },
  );
});
