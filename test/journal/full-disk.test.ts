// Writes on a full disk: a journal write that fails halfway is cut off and nothing more is appended,
// and a spool that cannot be written is an error the operator can act on (exit 2, nothing sent).
import * as fs from 'node:fs';
import type * as Fs from 'node:fs';
import { readFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ExitCode, UsageError } from '../../src/shared/errors.js';
import { LineAppender } from '../../src/journal/appender.js';
import { readJournal } from '../../src/journal/journal.js';
import { SpoolWriter } from '../../src/validate/spool.js';
import { tempDir } from '../helpers/files.js';

vi.mock('node:fs', async (importOriginal) => {
  const real = await importOriginal<typeof Fs>();
  return { ...real, writeSync: vi.fn(real.writeSync) };
});

let dir: Awaited<ReturnType<typeof tempDir>>;
beforeAll(async () => {
  dir = await tempDir();
});
afterAll(() => dir.remove());

const realWriteSync = (await vi.importActual<typeof Fs>('node:fs')).writeSync;

/**
 * The next write puts its first 20 characters in the file, then fails as a full disk does. The
 * error is returned so a test checks each append is refused with that very error (a rejection
 * with nothing in it would match a message pattern too).
 */
function diskFullAfter20(): Error {
  const error = Object.assign(new Error('ENOSPC: no space left on device, write'), {
    code: 'ENOSPC',
  });
  const torn = (fd: number, text: string): number => {
    realWriteSync(fd, text.slice(0, 20));
    throw error;
  };
  vi.mocked(fs.writeSync).mockImplementationOnce(torn);
  return error;
}

describe('LineAppender on a full disk', () => {
  it('cuts a half-written group back off and refuses every later append', async () => {
    const path = join(dir.path, 'journal.ndjson');
    const handle = await open(path, 'a+');
    const lines = new LineAppender(handle, true);
    const start = '{"t":"start","v":1,"campaign":"c","run":1,"at":"2026-11-23T00:00:00Z"}\n';
    await lines.append(start);
    const full = diskFullAfter20();
    const send = '{"t":"send","b":"1:1","rows":[1,2,3]}\n';
    await expect(lines.append(send)).rejects.toBe(full);
    // The space comes back: a later batch must still not be recorded (and so not be sent).
    await expect(lines.append('{"t":"send","b":"1:2","rows":[4]}\n')).rejects.toBe(full);
    await expect(lines.append('more\n', { sync: false })).rejects.toBe(full);
    await lines.close();
    expect(readFileSync(path, 'utf8')).toBe(start);
    const state = await readJournal(path);
    expect(state?.sent).toBe(false);
  });

  it('rejects the lines appended while the failing group was written, too', async () => {
    const path = join(dir.path, 'journal-2.ndjson');
    const handle = await open(path, 'a+');
    const lines = new LineAppender(handle, true);
    await lines.append('a\n');
    const full = diskFullAfter20();
    const first = lines.append(`${'b'.repeat(40)}\n`);
    await Promise.resolve();
    const waiting = lines.append('c\n');
    await expect(first).rejects.toBe(full);
    await expect(waiting).rejects.toBe(full);
    await lines.close();
    expect(readFileSync(path, 'utf8')).toBe('a\n');
  });

  it('a log of delivery reports (not synced) cuts the torn part off and goes on', async () => {
    const path = join(dir.path, 'dlr.ndjson');
    const lines = new LineAppender(await open(path, 'a'), false);
    await lines.append('one\n');
    const full = diskFullAfter20();
    await expect(lines.append(`${'x'.repeat(40)}\n`)).rejects.toBe(full);
    await lines.append('three\n');
    await lines.close();
    expect(readFileSync(path, 'utf8')).toBe('one\nthree\n');
  });
});

describe('SpoolWriter on a full disk', () => {
  it('says which file and that nothing was sent, with exit 2', async () => {
    const path = join(dir.path, 'spool');
    const spool = await SpoolWriter.create(path);
    vi.mocked(fs.writeSync).mockImplementationOnce(() => {
      throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    });
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
      `cannot write the campaign's spool ${path}: ENOSPC: no space left on device, write. ` +
        'Nothing was sent; make room in the state directory (SMS_SEND_STATE_DIR) and run again.',
    );
  });
});
