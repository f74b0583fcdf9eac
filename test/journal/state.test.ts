// The state directory read and written in-process: manifests, a campaign's status and counts,
// finding one by its ID, and pruning old ones.
import { mkdir, mkdtemp, readdir, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/shared/errors.js';
import { acquireLock } from '../../src/journal/lock.js';
import {
  campaignDetail,
  campaignPaths,
  effectiveStatus,
  ensureStateDir,
  listCampaigns,
  pruneCampaigns,
  readManifest,
  stateDirProblem,
  writeManifest,
} from '../../src/journal/folder/campaigns.js';
import { findCampaign } from '../../src/journal/lookup.js';
import type { Manifest } from '../../src/journal/manifest.js';
import { folderStore } from '../helpers/state.js';

let stateDir: string;
beforeEach(async () => {
  stateDir = await mkdtemp(join(tmpdir(), 'sms-send-state-unit-'));
});
afterEach(async () => {
  await rm(stateDir, { recursive: true, force: true });
});

const COUNTS = { accepted: 5, rejected: 1, invalid: 0, failed: 0, unknown: 2, skipped: 0 };

function manifest(id: string, overrides: Partial<Manifest> = {}): Manifest {
  return {
    v: 1,
    id,
    named: false,
    contentHash: `hash-${id}`,
    inputs: [],
    target: 'simulator',
    reports: [],
    createdAt: '2030-01-01T00:00:00.000Z',
    startedAt: '2030-01-01T00:00:00.000Z',
    updatedAt: '2030-01-01T00:00:00.000Z',
    status: 'finished',
    finishedAt: '2030-01-01T00:10:00.000Z',
    runs: 1,
    records: 8,
    counts: { ...COUNTS },
    ...overrides,
  };
}

async function save(m: Manifest, journal?: string): Promise<void> {
  const paths = campaignPaths(stateDir, m.id);
  await mkdir(paths.dir, { recursive: true });
  await writeManifest(paths.manifest, m);
  if (journal !== undefined) await writeFile(paths.journal, journal);
}

describe('campaignPaths', () => {
  it("names the campaign's folder and the files in it", () => {
    expect(campaignPaths('/s', 'c1')).toEqual({
      dir: join('/s', 'campaigns', 'c1'),
      manifest: join('/s', 'campaigns', 'c1', 'manifest.json'),
      journal: join('/s', 'campaigns', 'c1', 'journal.ndjson'),
      lock: join('/s', 'campaigns', 'c1', 'lock'),
      runs: join('/s', 'campaigns', 'c1', 'timeline.json'),
    });
  });
});

describe('ensureStateDir', () => {
  it('creates the campaigns folder, private to its owner, and accepts one that exists', async () => {
    const dir = join(stateDir, 'nested', 'state');
    await ensureStateDir(dir);
    expect((await stat(join(dir, 'campaigns'))).mode & 0o777).toBe(0o700);
    await expect(ensureStateDir(dir)).resolves.toBeUndefined();
  });

  it('refuses a state directory that cannot be made, naming it, the cause and the settings', async () => {
    const blocked = join(stateDir, 'a-file');
    await writeFile(blocked, '');
    const refusal = ensureStateDir(blocked);
    await expect(refusal).rejects.toBeInstanceOf(UsageError);
    await expect(refusal).rejects.toMatchObject({
      message:
        `the state directory ${blocked} cannot be written: not a directory (ENOTDIR); nothing was sent. ` +
        'Point --state-dir, SMS_SEND_STATE_DIR or "stateDir" in the config at a writable folder.',
      code: 'state-unwritable',
    });
  });
});

describe('manifests', () => {
  it('is written whole as indented JSON ending in a newline, private, with no file left aside', async () => {
    const paths = campaignPaths(stateDir, 'c1');
    await mkdir(paths.dir, { recursive: true });
    const m = manifest('c1');
    await writeManifest(paths.manifest, m);
    await writeManifest(paths.manifest, { ...m, runs: 2 });
    expect(await readFile(paths.manifest, 'utf8')).toBe(
      `${JSON.stringify({ ...m, runs: 2 }, null, 2)}\n`,
    );
    expect((await stat(paths.manifest)).mode & 0o777).toBe(0o600);
    expect(await readdir(paths.dir)).toEqual(['manifest.json']);
    expect(await readManifest(paths.manifest)).toEqual({ ...m, runs: 2 });
  });

  it('reads nothing where there is no manifest', async () => {
    expect(await readManifest(join(stateDir, 'manifest.json'))).toBeUndefined();
  });

  it('refuses a manifest that is not JSON, or of another version, naming the file', async () => {
    const path = join(stateDir, 'manifest.json');
    await writeFile(path, '{"v":1,');
    await expect(readManifest(path)).rejects.toMatchObject({
      message: `${path} is not valid JSON; nothing was sent`,
      code: 'state-corrupt',
    });
    await writeFile(path, JSON.stringify({ ...manifest('c'), v: 2 }));
    await expect(readManifest(path)).rejects.toMatchObject({
      message: `${path} was written by another version of sms-send (manifest version 2); nothing was sent`,
      code: 'state-version',
    });
  });
});

describe('effectiveStatus', () => {
  it('is the recorded status unless running; running without a live lock is interrupted', async () => {
    const paths = campaignPaths(stateDir, 'c1');
    await mkdir(paths.dir, { recursive: true });
    for (const status of ['finished', 'stopped', 'interrupted'] as const) {
      expect(await effectiveStatus(manifest('c1', { status }), paths)).toBe(status);
    }
    const running = manifest('c1', { status: 'running' });
    expect(await effectiveStatus(running, paths)).toBe('interrupted');
    const lock = await acquireLock(paths.lock);
    expect(await effectiveStatus(running, paths)).toBe('running');
    await lock.release();
  });
});

/** Rows 1–2 accepted, 3 rejected, 4 sent without an answer. */
const journal = [
  '{"t":"start","v":2,"campaign":"h","run":1,"at":"x"}',
  '{"t":"batch","b":"b1","r":[1,3]}',
  '{"t":"result","b":"b1","r":[1,3],"o":[[2,"accepted"],[1,"rejected"]],"a":[[3,1]]}',
  '{"t":"batch","b":"b2","r":[4,4]}',
  '',
].join('\n');

describe('listCampaigns', () => {
  it('lists none when there is no state, and every campaign with a manifest, newest first', async () => {
    expect(await listCampaigns(stateDir)).toEqual([]);
    await save(manifest('old', { startedAt: '2030-01-01T00:00:00.000Z' }));
    await save(manifest('new', { startedAt: '2030-03-01T00:00:00.000Z' }));
    await save(manifest('mid', { startedAt: '2030-02-01T00:00:00.000Z' }));
    await mkdir(campaignPaths(stateDir, 'no-manifest').dir);
    const corrupt = campaignPaths(stateDir, 'corrupt');
    await mkdir(corrupt.dir);
    await writeFile(corrupt.manifest, '{');
    const entries = await listCampaigns(stateDir);
    expect(entries.map((e) => e.manifest.id)).toEqual(['new', 'mid', 'old']);
    expect(entries[0]).toEqual({
      manifest: manifest('new', { startedAt: '2030-03-01T00:00:00.000Z' }),
      status: 'finished',
      where: campaignPaths(stateDir, 'new').dir,
      counts: COUNTS,
    });
  });

  it('counts a finished or stopped campaign by its manifest, even with a journal', async () => {
    await save(manifest('f'), journal);
    await save(
      manifest('s', { status: 'stopped', startedAt: '2029-01-01T00:00:00.000Z' }),
      journal,
    );
    const entries = await listCampaigns(stateDir);
    expect(entries.map((e) => [e.status, e.counts])).toEqual([
      ['finished', COUNTS],
      ['stopped', COUNTS],
    ]);
  });

  it('lists from the manifests alone: a journal is never read, whatever it holds', async () => {
    await save(manifest('i', { status: 'running' }), journal);
    await save(
      manifest('newer', { status: 'interrupted', startedAt: '2029-01-01T00:00:00.000Z' }),
      '{"t":"start","v":9,"campaign":"h","run":1,"at":"x"}\n',
    );
    const entries = await listCampaigns(stateDir);
    expect(entries.map((e) => [e.manifest.id, e.status, e.counts])).toEqual([
      ['i', 'interrupted', COUNTS],
      ['newer', 'interrupted', COUNTS],
    ]);
  });
});

describe('campaignDetail', () => {
  it('counts a killed or running campaign from its journal', async () => {
    const fromJournal = { accepted: 2, rejected: 1, invalid: 0, failed: 0, unknown: 0, skipped: 0 };
    await save(manifest('i', { status: 'running' }), journal);
    const [killed] = await listCampaigns(stateDir);
    expect(await campaignDetail(stateDir, killed!)).toMatchObject({
      status: 'interrupted',
      counts: fromJournal,
      countedFromJournal: true,
    });
    const lock = await acquireLock(campaignPaths(stateDir, killed!.manifest.id).lock);
    const [running] = await listCampaigns(stateDir);
    expect(await campaignDetail(stateDir, running!)).toMatchObject({
      status: 'running',
      counts: fromJournal,
    });
    await lock.release();
  });

  it('counts a campaign whose run ended by Ctrl-C from its manifest: the invalid and skipped rows its journal never holds', async () => {
    await save(manifest('ctrl-c', { status: 'interrupted' }), journal);
    const [stopped] = await listCampaigns(stateDir);
    expect(await campaignDetail(stateDir, stopped!)).toMatchObject({
      status: 'interrupted',
      counts: COUNTS,
      countedFromJournal: false,
    });
  });

  it('falls back to the manifest when an unfinished campaign has no journal it can read', async () => {
    await save(manifest('none', { status: 'interrupted' }));
    await save(
      manifest('newer', { status: 'interrupted', startedAt: '2029-01-01T00:00:00.000Z' }),
      '{"t":"start","v":9,"campaign":"h","run":1,"at":"x"}\n',
    );
    for (const entry of await listCampaigns(stateDir)) {
      expect(await campaignDetail(stateDir, entry)).toMatchObject({
        counts: COUNTS,
        countedFromJournal: false,
      });
    }
  });

  it('counts the journals --force runs set aside, and their bytes', async () => {
    await save(manifest('forced'), journal);
    const { dir } = campaignPaths(stateDir, 'forced');
    await writeFile(join(dir, 'journal-1700000000000.ndjson'), 'x'.repeat(100));
    await writeFile(join(dir, 'journal-1700000000001.ndjson'), 'x'.repeat(23));
    await writeFile(join(dir, 'journal-notes.txt'), 'not a journal');
    const [entry] = await listCampaigns(stateDir);
    expect((await campaignDetail(stateDir, entry!)).setAside).toEqual({ journals: 2, bytes: 123 });
    await save(manifest('plain'), journal);
    const plain = (await listCampaigns(stateDir)).find((e) => e.manifest.id === 'plain')!;
    expect((await campaignDetail(stateDir, plain)).setAside).toEqual({ journals: 0, bytes: 0 });
  });
});

describe('findCampaign', () => {
  beforeEach(async () => {
    await save(manifest('abc'));
    await save(manifest('abcdef', { startedAt: '2030-02-01T00:00:00.000Z' }));
    await save(manifest('abx123', { startedAt: '2030-03-01T00:00:00.000Z' }));
    await save(manifest('zzz'));
  });

  it('finds a campaign by its whole ID, even one that begins another', async () => {
    expect((await findCampaign(folderStore(stateDir), 'abc')).manifest.id).toBe('abc');
  });

  it('finds a campaign by a prefix only it has', async () => {
    expect((await findCampaign(folderStore(stateDir), 'abx')).manifest.id).toBe('abx123');
    expect((await findCampaign(folderStore(stateDir), 'abcd')).manifest.id).toBe('abcdef');
  });

  it('refuses a prefix several have, naming them, and one none has', async () => {
    await expect(findCampaign(folderStore(stateDir), 'ab')).rejects.toMatchObject({
      message: 'campaign "ab" is ambiguous: abx123, abcdef, abc',
      code: 'campaign-ambiguous',
    });
    await expect(findCampaign(folderStore(stateDir), 'q')).rejects.toMatchObject({
      message: `no campaign "q" in ${stateDir}`,
      code: 'campaign-unknown',
    });
  });
});

describe('pruneCampaigns', () => {
  const CUTOFF = new Date('2030-06-01T00:00:00.000Z');
  const before = '2030-05-31T23:59:59.999Z';
  const after = '2030-06-01T00:00:00.000Z';

  it('removes campaigns that finished before the cutoff, and only those', async () => {
    await save(manifest('done-before', { finishedAt: before }));
    await save(manifest('done-at', { finishedAt: after }));
    await save(manifest('updated-before', { finishedAt: undefined, updatedAt: before }));
    await save(manifest('updated-at', { finishedAt: undefined, updatedAt: after }));
    await save(manifest('stopped', { status: 'stopped', finishedAt: before }));
    await save(manifest('interrupted', { status: 'interrupted', finishedAt: before }));
    await save(manifest('running', { status: 'running', finishedAt: before }));
    const removed = await pruneCampaigns(stateDir, CUTOFF);
    expect(removed.sort()).toEqual(['done-before', 'updated-before']);
    expect((await readdir(join(stateDir, 'campaigns'))).sort()).toEqual([
      'done-at',
      'interrupted',
      'running',
      'stopped',
      'updated-at',
    ]);
  });

  it('removes the journals --force runs set aside with their campaign', async () => {
    await save(manifest('forced', { finishedAt: before }), journal);
    const { dir } = campaignPaths(stateDir, 'forced');
    await writeFile(join(dir, 'journal-1700000000000.ndjson'), journal);
    expect(await pruneCampaigns(stateDir, CUTOFF)).toEqual(['forced']);
    expect(await readdir(join(stateDir, 'campaigns'))).toEqual([]);
  });

  it('keeps a finished campaign whose lock a live run holds', async () => {
    await save(manifest('busy', { finishedAt: before }));
    const lock = await acquireLock(campaignPaths(stateDir, 'busy').lock);
    expect(await pruneCampaigns(stateDir, CUTOFF)).toEqual([]);
    await lock.release();
    expect(await pruneCampaigns(stateDir, CUTOFF)).toEqual(['busy']);
  });

  it('removes a folder left without a manifest when it is older than the cutoff and not locked', async () => {
    const aged = async (id: string, time: string) => {
      const { dir } = campaignPaths(stateDir, id);
      await mkdir(dir, { recursive: true });
      await utimes(dir, new Date(time), new Date(time));
    };
    await aged('old', before);
    await aged('young', after);
    await aged('locked', before);
    const lock = await acquireLock(campaignPaths(stateDir, 'locked').lock);
    await utimes(campaignPaths(stateDir, 'locked').dir, new Date(before), new Date(before));
    expect(await pruneCampaigns(stateDir, CUTOFF)).toEqual(['old']);
    await lock.release();
    expect(await pruneCampaigns(stateDir, new Date('2100-01-01T00:00:00Z'))).toEqual(
      expect.arrayContaining(['locked', 'young']),
    );
    expect(await pruneCampaigns(stateDir, CUTOFF)).toEqual([]);
  });

  it('prunes nothing in a state directory without campaigns', async () => {
    expect(await pruneCampaigns(join(stateDir, 'none'), CUTOFF)).toEqual([]);
  });
});

describe('stateDirProblem: what a dry run says a real run would meet', () => {
  it('none for a state directory that can be made below a writable folder', async () => {
    expect(await stateDirProblem(join(stateDir, 'a', 'b'))).toBeUndefined();
    await ensureStateDir(stateDir);
    expect(await stateDirProblem(stateDir)).toBeUndefined();
  });

  it('the refusal of a real run for one below a folder it cannot write', async () => {
    // As root every folder is writable: what cannot be made is a folder below a file.
    const blocked = join(stateDir, 'file');
    await writeFile(blocked, '');
    const problem = await stateDirProblem(join(blocked, 'state'));
    expect(problem).toBeInstanceOf(UsageError);
    expect(problem?.message).toContain(
      `the state directory ${join(blocked, 'state')} cannot be written`,
    );
  });
});

describe('listCampaigns and campaignDetail: what they pass over', () => {
  it('passes over a campaign whose manifest cannot be read, and lists the rest', async () => {
    await save(manifest('good'));
    const bad = campaignPaths(stateDir, 'bad');
    await mkdir(bad.dir, { recursive: true });
    await writeFile(bad.manifest, '{not json');
    expect((await listCampaigns(stateDir)).map((e) => e.manifest.id)).toEqual(['good']);
  });

  it('counts a stopped campaign by its manifest, its journal unread', async () => {
    await save(manifest('stopped', { status: 'stopped' }), journal);
    const [entry] = await listCampaigns(stateDir);
    expect(await campaignDetail(stateDir, entry!)).toMatchObject({
      counts: COUNTS,
      countedFromJournal: false,
      setAside: { journals: 0, bytes: 0 },
    });
  });
});

describe('pruneCampaigns: what it keeps', () => {
  it('keeps a campaign with a manifest whose lock a live run holds, even one finished long ago', async () => {
    await save(manifest('old', { finishedAt: '2000-01-01T00:00:00.000Z' }));
    const lock = await acquireLock(campaignPaths(stateDir, 'old').lock);
    expect(await pruneCampaigns(stateDir, new Date('2040-01-01'))).toEqual([]);
    await lock.release();
    expect(await pruneCampaigns(stateDir, new Date('2040-01-01'))).toEqual(['old']);
    expect(await readdir(join(stateDir, 'campaigns'))).toEqual([]);
  });

  it('keeps an unfinished campaign whatever its age', async () => {
    await save(manifest('open', { status: 'interrupted', updatedAt: '2000-01-01T00:00:00.000Z' }));
    expect(await pruneCampaigns(stateDir, new Date('2040-01-01'))).toEqual([]);
  });
});
