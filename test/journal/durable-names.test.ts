// The names the first batch depends on are durable before it leaves: the campaign's folder synced
// in campaigns/, the journal's name synced in the campaign's folder, the report's in its own,
// each after it was made. The
// file-system calls of a whole send, in-process, are logged in order by spies on node:fs/promises.
import type * as fsPromises from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { tempDir } from '../helpers/files.js';
import { runPipeline } from '../helpers/pipeline.js';

const log = vi.hoisted(() => [] as string[]);

vi.mock('node:fs/promises', async (importOriginal) => {
  const actual = await importOriginal<typeof fsPromises>();
  return {
    ...actual,
    mkdir: async (...args: Parameters<typeof actual.mkdir>) => {
      const first = await actual.mkdir(...args);
      log.push(`mkdir ${String(args[0])}${first === undefined ? ' (there)' : ''}`);
      return first;
    },
    open: async (...args: Parameters<typeof actual.open>): Promise<FileHandle> => {
      const handle = await actual.open(...args);
      const path = String(args[0]);
      log.push(`open ${path} ${String(args[1] ?? 'r')}`);
      for (const call of ['sync', 'datasync'] as const) {
        const original = handle[call].bind(handle);
        handle[call] = () => {
          log.push(`${call} ${path}`);
          return original();
        };
      }
      return handle;
    },
  };
});

let dir: { path: string; remove: () => Promise<void> };
beforeEach(async () => {
  dir = await tempDir();
  log.length = 0;
});
afterEach(async () => {
  await dir.remove();
});

describe('durable names', () => {
  it('syncs the campaign folder in campaigns/ and the new journal in its folder before the first batch', async () => {
    const input = join(dir.path, 'c.csv');
    await writeFile(input, 'phone,text\n4741999300,hi\n4741999301,hi\n');
    const run = await runPipeline([input, '--batch-size', '1', '--concurrency', '1'], {
      cwd: dir.path,
      workDir: dir.path,
    });
    expect(run.code).toBe(0);
    const mkdirAt = log.findIndex((l) => /^mkdir .*\/campaigns\/[0-9a-f]+$/.test(l));
    expect(mkdirAt).toBeGreaterThanOrEqual(0);
    const campaign = log[mkdirAt]!.slice('mkdir '.length);
    const campaigns = dirname(campaign);
    const journal = join(campaign, 'journal.ndjson');
    const at = (entry: string, from = 0) => {
      const found = log.indexOf(entry, from);
      expect(found, `${entry} after ${from}`).toBeGreaterThanOrEqual(0);
      return found;
    };
    const folderSynced = at(`sync ${campaigns}`, mkdirAt);
    const journalMade = at(`open ${journal} a+`);
    const journalNamed = at(`sync ${campaign}`, journalMade);
    // The journal's first sync is its start line; the second, the first batch's intent, which is
    // synced before its request is written.
    const startSynced = at(`datasync ${journal}`);
    const firstBatch = at(`datasync ${journal}`, startSynced + 1);
    expect(mkdirAt).toBeLessThan(folderSynced);
    expect(folderSynced).toBeLessThan(journalMade);
    expect(journalNamed).toBeLessThan(startSynced);
    expect(startSynced).toBeLessThan(firstBatch);
    // Two or three folder syncs per campaign: its folder, its manifest's rename, its journal.
    const folderSyncs = log
      .slice(mkdirAt, firstBatch)
      .filter((l) => l === `sync ${campaigns}` || l === `sync ${campaign}`);
    expect(folderSyncs).toEqual([`sync ${campaigns}`, `sync ${campaign}`, `sync ${campaign}`]);
    expect(basename(campaigns)).toBe('campaigns');
    // The report the manifest names is findable after a crash: its name synced in its folder.
    const reportMade = at(`open ${run.report} wx`);
    const reportNamed = at(`sync ${dirname(run.report)}`, reportMade);
    expect(reportNamed).toBeLessThan(firstBatch);
  });
});
