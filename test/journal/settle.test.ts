// recordConfirmed in-process: which campaign a delivery report's confirmations settle, which of
// their rows, and what the journal and manifest then say.
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readJournalFile } from '../../src/journal/reading.js';
import { recordConfirmed } from '../../src/journal/folder/confirmed.js';
import { campaignPaths, readManifest, writeManifest } from '../../src/journal/folder/campaigns.js';
import type { Manifest } from '../../src/journal/manifest.js';
import type { RowResult } from '../../src/message/outcome.js';

let stateDir: string;
let report: string;
beforeEach(async () => {
  stateDir = await mkdtemp(join(tmpdir(), 'sms-send-settle-'));
  report = join(stateDir, 'report.csv');
});
afterEach(async () => {
  await rm(stateDir, { recursive: true, force: true });
});

const COUNTS = { accepted: 3, rejected: 1, invalid: 0, failed: 0, unknown: 2, skipped: 0 };
const UPDATED = '2030-01-01T00:00:00.000Z';

/** Rows 1–2 accepted, 3 rejected, 4–5 unknown, 6 sent without an answer; 7 never sent. */
const JOURNAL = [
  '{"t":"start","v":2,"campaign":"h","run":1,"at":"x"}',
  '{"t":"batch","b":"b1","r":[1,3]}',
  '{"t":"result","b":"b1","r":[1,3],"o":[[2,"accepted"],[1,"rejected"]],"a":[[3,1]],"c":[[2,null],[1,5]]}',
  '{"t":"batch","b":"b2","r":[4,5]}',
  '{"t":"result","b":"b2","r":[4,5],"o":[[2,"unknown"]],"a":[[2,1]]}',
  '{"t":"batch","b":"b3","r":[6,6]}',
  '',
].join('\n');

async function campaign(id: string, reports: string[], counts = COUNTS) {
  const paths = campaignPaths(stateDir, id);
  await mkdir(paths.dir, { recursive: true });
  const m: Manifest = {
    v: 1,
    id,
    named: false,
    contentHash: 'h',
    inputs: [],
    target: 'simulator',
    reports,
    createdAt: UPDATED,
    startedAt: UPDATED,
    updatedAt: UPDATED,
    status: 'finished',
    runs: 1,
    records: 7,
    counts: { ...counts },
  };
  await writeManifest(paths.manifest, m);
  await writeFile(paths.journal, JOURNAL);
  return { paths, manifest: m };
}

const confirmed = (row: number): RowResult => ({
  row,
  to: `47${41000000 + row}`,
  messageId: `m-${row}`,
  outcome: 'accepted',
  attempts: 1,
  statusDescription: 'confirmed by delivery report',
});

describe('recordConfirmed', () => {
  it('settles the unknown and unanswered rows as accepted, and moves them in the counts', async () => {
    const { paths, manifest } = await campaign('c1', [join(stateDir, 'old.csv'), report]);
    const rows = [1, 3, 4, 6, 7].map(confirmed);
    expect(await recordConfirmed(stateDir, report, rows)).toBe('c1');
    const lines = (await readFile(paths.journal, 'utf8')).trimEnd().split('\n');
    expect(JSON.parse(lines.at(-1)!)).toEqual({
      t: 'result',
      b: 'dlr',
      r: [4, 4, 6, 6],
      o: [[2, 'accepted']],
      a: [[2, 1]],
      d: [[2, 'confirmed by delivery report']],
    });
    const state = await readJournalFile(paths.journal);
    expect([1, 2, 3, 4, 5, 6].map((row) => state!.results.outcome(row))).toEqual([
      'accepted',
      'accepted',
      'rejected',
      'accepted',
      'unknown',
      'accepted',
    ]);
    expect(state!.inFlight.size).toBe(0);
    const after = await readManifest(paths.manifest);
    expect(after).toEqual({
      ...manifest,
      counts: { ...COUNTS, unknown: 0, accepted: 5 },
      updatedAt: after!.updatedAt,
    });
    expect(after!.updatedAt).not.toBe(UPDATED);
    expect(await readdir(paths.dir)).toEqual(['journal.ndjson', 'manifest.json']);
  });

  it('moves no more rows in the counts than the manifest counts unknown', async () => {
    const { paths } = await campaign('c1', [report], { ...COUNTS, unknown: 1 });
    await recordConfirmed(stateDir, report, [4, 5, 6].map(confirmed));
    expect((await readManifest(paths.manifest))!.counts).toEqual({
      ...COUNTS,
      unknown: 0,
      accepted: 4,
    });
  });

  it('finds the campaign by a report path relative to the working folder', async () => {
    await campaign('c1', [report]);
    expect(await recordConfirmed(stateDir, relative(process.cwd(), report), [confirmed(4)])).toBe(
      'c1',
    );
  });

  it('changes nothing when no row is left open, but names the campaign', async () => {
    const { paths } = await campaign('c1', [report]);
    const manifestBefore = await readFile(paths.manifest, 'utf8');
    expect(await recordConfirmed(stateDir, report, [1, 3, 7].map(confirmed))).toBe('c1');
    expect(await readFile(paths.journal, 'utf8')).toBe(JOURNAL);
    expect(await readFile(paths.manifest, 'utf8')).toBe(manifestBefore);
  });

  it('settles nothing of a campaign without a journal, but names it', async () => {
    const { paths } = await campaign('c1', [report]);
    await rm(paths.journal);
    const manifestBefore = await readFile(paths.manifest, 'utf8');
    expect(await recordConfirmed(stateDir, report, [4, 6].map(confirmed))).toBe('c1');
    expect(await readFile(paths.manifest, 'utf8')).toBe(manifestBefore);
    expect(await readdir(paths.dir)).toEqual(['manifest.json']);
  });

  it('does nothing without rows, or when no campaign wrote that report last', async () => {
    const { paths } = await campaign('c1', [report, join(stateDir, 'newer.csv')]);
    expect(await recordConfirmed(stateDir, report, [confirmed(4)])).toBeUndefined();
    await campaign('c2', [report]);
    expect(await recordConfirmed(stateDir, report, [])).toBeUndefined();
    expect(await readFile(paths.journal, 'utf8')).toBe(JOURNAL);
    expect(await readFile(campaignPaths(stateDir, 'c2').journal, 'utf8')).toBe(JOURNAL);
  });

  it('leaves a campaign a live run holds alone', async () => {
    const { paths } = await campaign('c1', [report]);
    // pid 1 is alive on every machine: a run of another process holds the campaign.
    const held = JSON.stringify({ pid: 1, host: hostname(), since: 'now' });
    await writeFile(paths.lock, held);
    expect(await recordConfirmed(stateDir, report, [confirmed(4)])).toBeUndefined();
    expect(await readFile(paths.journal, 'utf8')).toBe(JOURNAL);
    expect(await readFile(paths.lock, 'utf8')).toBe(held);
  });

  it('passes on a failure to take the lock other than a live holder', async () => {
    const { paths } = await campaign('c1', [report]);
    await mkdir(paths.lock);
    await expect(recordConfirmed(stateDir, report, [confirmed(4)])).rejects.toMatchObject({
      code: 'EISDIR',
    });
    expect(await readFile(paths.journal, 'utf8')).toBe(JOURNAL);
  });
});
