// The journal's syncs and closes leave nothing in the file a test could read: every file handle
// opened here gets spies on its own sync, datasync and close, so the calls the journal makes show.
import type * as fsPromises from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from 'vitest';
import { resultLine, batchLine } from '../../src/journal/lines.js';
import { JournalWriter } from '../../src/journal/folder/journal.js';
import { readJournalFile } from '../../src/journal/reading.js';
import { UsageError } from '../../src/shared/errors.js';

interface Spied {
  datasync: MockInstance;
  sync: MockInstance;
  close: MockInstance;
}

const opened = vi.hoisted(() => [] as Spied[]);

vi.mock('node:fs/promises', async (importOriginal) => {
  const actual = await importOriginal<typeof fsPromises>();
  return {
    ...actual,
    open: async (...args: Parameters<typeof actual.open>): Promise<FileHandle> => {
      const handle = await actual.open(...args);
      opened.push({
        datasync: vi.spyOn(handle, 'datasync'),
        sync: vi.spyOn(handle, 'sync'),
        close: vi.spyOn(handle, 'close'),
      });
      return handle;
    },
  };
});

let dir: string;
let path: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sms-send-journal-syncs-'));
  path = join(dir, 'journal.ndjson');
  opened.length = 0;
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const start = (v = 2) => ({ t: 'start', v, campaign: 'c', run: 1, at: 'then' }) as const;

describe('JournalWriter syncs', () => {
  it('each line saying what is about to be sent or was not sent, and no result line', async () => {
    const writer = await JournalWriter.open(path);
    // The journal, then its folder, synced once for the new name and closed.
    expect(opened).toHaveLength(2);
    const handle = opened[0]!;
    expect(opened[1]!.sync).toHaveBeenCalledTimes(1);
    expect(opened[1]!.close).toHaveBeenCalledTimes(1);
    const syncsFor = async (line: Parameters<JournalWriter['append']>[0]) => {
      handle.datasync.mockClear();
      await writer.append(line);
      return handle.datasync.mock.calls.length;
    };
    expect(await syncsFor(start())).toBe(1);
    expect(await syncsFor(batchLine('b1', [1]))).toBe(1);
    expect(await syncsFor({ t: 'unsent', b: 'b1' })).toBe(1);
    expect(await syncsFor(batchLine('b1', [1]))).toBe(1);
    expect(await syncsFor(resultLine('b1', []))).toBe(0);
    expect(handle.sync).not.toHaveBeenCalled();
    expect(handle.close).not.toHaveBeenCalled();
    // Closing syncs what was only written (the result line), then closes the file.
    await writer.close();
    expect(handle.sync).toHaveBeenCalledTimes(1);
    expect(handle.close).toHaveBeenCalledTimes(1);
    expect(handle.sync.mock.invocationCallOrder[0]!).toBeLessThan(
      handle.close.mock.invocationCallOrder[0]!,
    );
  });
});

describe('readJournal', () => {
  it('closes the file it read', async () => {
    await writeFile(path, `${JSON.stringify(start())}\n`);
    expect(await readJournalFile(path)).toMatchObject({ runs: 1, campaign: 'c' });
    expect(opened).toHaveLength(1);
    expect(opened[0]!.close).toHaveBeenCalledTimes(1);
  });

  it('closes the file also when it refuses the journal', async () => {
    await writeFile(path, `${JSON.stringify(start(3))}\n`);
    await expect(readJournalFile(path)).rejects.toThrow(UsageError);
    expect(opened).toHaveLength(1);
    expect(opened[0]!.close).toHaveBeenCalledTimes(1);
  });
});
