// A spool that cannot be written (a full disk) is an error the operator can act on: exit 2, nothing sent.
import * as fs from 'node:fs';
import type * as Fs from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ExitCode, UsageError } from '../../src/errors.js';
import { SpoolWriter } from '../../src/send/spool.js';
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

describe('SpoolWriter on a full disk', () => {
  it('says which file and that nothing was sent, with exit 2', async () => {
    const path = join(dir.path, 'spool');
    const spool = await SpoolWriter.create(path);
    vi.mocked(fs.writeSync).mockImplementationOnce(() => {
      throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    });
    spool.addLines('F\t{}\n'.repeat(10));
    let thrown: unknown;
    try {
      await spool.close();
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(UsageError);
    expect(thrown).toMatchObject({ exitCode: ExitCode.usage, code: 'state-unwritable' });
    expect((thrown as Error).message).toBe(
      `cannot write the campaign's spool ${path}: ENOSPC: no space left on device, write. ` +
        'Nothing was sent; make room in the state directory (SMS_SEND_STATE_DIR) and run again.',
    );
  });
});
