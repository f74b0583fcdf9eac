// The campaign's state decides before anything is sent: each state of the folder, in-process.
import { spawnSync } from 'node:child_process';
import { access, mkdir, readFile, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hostCache, type HostCache } from '../../src/journal/cache.js';
import { claimCampaign, type FolderPlace } from '../../src/journal/folder/claim.js';
import { campaignIdentity } from '../../src/journal/identity.js';
import {
  campaignPaths,
  listCampaigns,
  pruneCampaigns,
  readManifest,
} from '../../src/journal/folder/campaigns.js';
import type { Manifest } from '../../src/journal/manifest.js';
import { Tally } from '../../src/report/summary.js';
import { settledRows } from '../../src/campaign/steps/resume.js';
import { readJournalFile } from '../../src/journal/reading.js';
import { tempDir } from '../helpers/files.js';
import { startFieldsOf } from '../helpers/state.js';

const HASH = 'f'.repeat(64);
const identity = campaignIdentity(HASH);
let dir: Awaited<ReturnType<typeof tempDir>>;
let stateDir: string;
/** This host's cache of the state directory: a campaign's spool. */
let cache: HostCache;
const place = (at: string): FolderPlace => ({ stateDir: at, cache });

beforeEach(async () => {
  dir = await tempDir();
  stateDir = join(dir.path, 'state');
  cache = hostCache({ stateDir });
});
afterEach(() => dir.remove());

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

function manifest(over: Partial<Manifest> = {}): Manifest {
  return {
    v: 1,
    id: identity.id,
    named: false,
    contentHash: HASH,
    inputs: [],
    target: 'https://gw.example/rest',
    reports: ['/srv/reports/2026-11-22-tonight.csv'],
    createdAt: '2026-11-22T18:30:00.000Z',
    startedAt: '2026-11-22T18:30:00.000Z',
    updatedAt: '2026-11-22T18:31:00.000Z',
    status: 'finished',
    finishedAt: '2026-11-22T18:31:00.000Z',
    runs: 1,
    records: 4,
    counts: { accepted: 3, rejected: 0, invalid: 0, failed: 1, unknown: 0, skipped: 0 },
    ...over,
  };
}

const JOURNAL_SENT = [
  '{"t":"start","v":2,"campaign":"' + HASH + '","run":1,"at":"2026-11-22T18:30:00.000Z"}',
  '{"t":"batch","b":"1:1","r":[1,2]}',
  '{"t":"result","b":"1:1","r":[1,2],"o":[[1,"accepted"],[1,"failed"]],"a":[[2,1]],"c":[[1,0],[1,null]],"d":[[1,"Accepted"],[1,null]],"i":[[1,"t1"],[1,null]],"e":[[1,null],[1,"HTTP 503"]]}',
  '{"t":"batch","b":"1:2","r":[3,4]}',
  '',
].join('\n');

async function seed(state: Manifest | undefined, journal: string | undefined, lockPid?: number) {
  const paths = campaignPaths(stateDir, identity.id);
  await mkdir(paths.dir, { recursive: true });
  if (state) await writeFile(paths.manifest, JSON.stringify(state));
  if (journal !== undefined) await writeFile(paths.journal, journal);
  if (lockPid !== undefined) {
    const since = new Date().toISOString();
    await writeFile(paths.lock, JSON.stringify({ pid: lockPid, host: hostname(), since }));
  }
  return paths;
}

const claim = (over: { force?: boolean; resume?: boolean; hash?: string } = {}) =>
  claimCampaign(place(stateDir), {
    identity: over.hash ? { ...identity, contentHash: over.hash } : identity,
    force: over.force ?? false,
    resume: over.resume ?? false,
  });

// A process that has exited, for a lock whose owner is gone (it is not sms-send: no
// SMS_SEND_STATE_DIR needed; the state here is the test's own folder).
const deadPid = () => spawnSync(process.execPath, ['-e', '0']).pid;

describe('claimCampaign', () => {
  it('a new campaign: claimed; released without starting, it leaves no folder behind', async () => {
    const c = await claim();
    expect(c.found.previous).toBeUndefined();
    expect(await exists(campaignPaths(stateDir, identity.id).lock)).toBe(true);
    await c.release();
    expect(await exists(campaignPaths(stateDir, identity.id).dir)).toBe(false);
  });

  it('a finished campaign is refused (exit 2) with its date, counts, report and the way out', async () => {
    await seed(manifest(), JOURNAL_SENT);
    await expect(claim()).rejects.toMatchObject({
      exitCode: 2,
      code: 'already-sent',
      message:
        `campaign ${identity.id} was already sent on 2026-11-22: 3 accepted, 1 failed; ` +
        'report /srv/reports/2026-11-22-tonight.csv. Nothing was sent. --force sends it all ' +
        'again, and 3 messages it sent or may have sent (accepted or unknown) would go twice; ' +
        '--resume sends only its 1 failed records again.',
    });
    // The refusal released the lock: the next claim is refused the same way, not locked out.
    await expect(claim()).rejects.toMatchObject({ code: 'already-sent' });
  });

  it('a run killed mid-campaign (running, dead lock) is unfinished: counts from the journal, --resume named', async () => {
    await seed(manifest({ status: 'running', finishedAt: undefined }), JOURNAL_SENT, deadPid());
    await expect(claim()).rejects.toMatchObject({
      exitCode: 2,
      code: 'unfinished',
      message: expect.stringMatching(
        /was interrupted on 2026-11-22: 1 accepted, 1 failed, 2 recorded, not known to have left of 4 records;.*--resume/,
      ) as unknown,
    });
  });

  it('a stopped campaign names why it stopped', async () => {
    await seed(manifest({ status: 'stopped', reason: 'connection refused' }), JOURNAL_SENT);
    await expect(claim()).rejects.toThrow(/was stopped \(connection refused\) on 2026-11-22/);
  });

  it('a campaign another live process holds is exit 4, saying how to see how it stands', async () => {
    // The test runner's process: alive, and not this one.
    await seed(manifest({ status: 'running' }), JOURNAL_SENT, process.ppid);
    await expect(claim({ resume: true })).rejects.toMatchObject({
      exitCode: 4,
      code: 'locked',
      next: {
        say: 'See how it stands',
        args: ['campaigns', '--state-dir', stateDir, 'show', identity.id],
      },
    });
  });

  it('held by a run that has not started sending: exit 4, with nothing to show yet', async () => {
    await seed(undefined, undefined, process.ppid);
    const refused = await claim().catch((error: unknown) => error);
    expect(refused).toMatchObject({ exitCode: 4, code: 'locked' });
    expect((refused as { next?: unknown }).next).toBeUndefined();
  });

  it("a real run's start sets a finished rehearsal aside under a name of its own", async () => {
    await seed(manifest({ rehearsal: true, target: 'simulator' }), JOURNAL_SENT);
    const c = await claimCampaign(place(stateDir), { identity, force: false, resume: false });
    expect(c.found.rehearsal?.id).toBe(identity.id);
    const fields = { ...startFieldsOf(manifest()), report: join(dir.path, 'real.csv') };
    await c.start({ ...fields, status: 'running' });
    const aside = campaignPaths(stateDir, `${identity.id}-rehearsal-1`);
    expect(await readManifest(aside.manifest)).toMatchObject({
      id: `${identity.id}-rehearsal-1`,
      rehearsal: true,
    });
    expect(await exists(aside.journal)).toBe(true);
    await c.release();
  });

  it('--resume continues from the journal; --force starts afresh without it', async () => {
    const paths = await seed(manifest({ status: 'interrupted' }), JOURNAL_SENT);
    const resumed = await claim({ resume: true });
    expect(resumed.found.journal?.results.size).toBe(2);
    expect(resumed.found.journal?.inFlight.size).toBe(2);
    await resumed.release();
    expect(await exists(paths.journal)).toBe(true); // an earlier campaign's state is kept

    const forced = await claim({ force: true });
    expect(forced.found.journal).toBeUndefined();
    // Kept until the send pass starts sending (it archives it then), so a forced run that sends
    // nothing leaves the campaign as it was.
    expect(await exists(paths.journal)).toBe(true);
    await forced.release();
  });

  it('a --force run that sent nothing (declined, refused, killed) leaves a finished campaign refused', async () => {
    await seed(manifest(), JOURNAL_SENT);
    const forced = await claim({ force: true });
    await forced.release();
    await expect(claim()).rejects.toMatchObject({ code: 'already-sent' });
  });

  it('a --force run that archived the journal and was killed before its first batch still blocks a plain run', async () => {
    const paths = await seed(manifest({ status: 'running' }), '', deadPid());
    await writeFile(join(paths.dir, 'journal-1700000000000.ndjson'), JOURNAL_SENT);
    await expect(claim()).rejects.toMatchObject({ code: 'unfinished' });
  });

  it('"nothing to resume" twice is refused twice: the refusal leaves no folder behind', async () => {
    await expect(claim({ resume: true })).rejects.toMatchObject({ code: 'nothing-to-resume' });
    await expect(claim({ resume: true })).rejects.toMatchObject({ code: 'nothing-to-resume' });
    expect(await exists(campaignPaths(stateDir, identity.id).dir)).toBe(false);
  });

  it('batches that were all taken back as unsent sent nothing: a plain run starts afresh', async () => {
    const journal = [
      JOURNAL_SENT.split('\n')[0],
      '{"t":"batch","b":"1:1","r":[1,2]}',
      '{"t":"unsent","b":"1:1"}',
      '',
    ].join('\n');
    await seed(manifest({ status: 'running' }), journal, deadPid());
    const fresh = await claim();
    expect(fresh.found.previous).toBeUndefined();
    await fresh.release();
  });

  it('a run killed before its first batch sent nothing: a plain run starts afresh', async () => {
    const startOnly = `${JOURNAL_SENT.split('\n')[0]!}\n`;
    const paths = await seed(manifest({ status: 'running' }), startOnly, deadPid());
    const c = await claim();
    expect(c.found.previous).toBeUndefined();
    expect(await exists(paths.journal)).toBe(false);
    expect(await exists(paths.manifest)).toBe(false);
    await c.release();
  });

  it('a journal written by another sms-send is refused (exit 2), not guessed at', async () => {
    await seed(manifest({ status: 'interrupted' }), JOURNAL_SENT.replace('"v":2', '"v":3'));
    await expect(claim({ resume: true })).rejects.toMatchObject({
      exitCode: 2,
      code: 'journal-version',
      message: expect.stringContaining('journal version 3, this one reads 2)') as unknown,
    });
  });

  it('a named campaign sent from other content is refused, even with --resume', async () => {
    await seed(manifest({ status: 'interrupted' }), JOURNAL_SENT);
    await expect(claim({ resume: true, hash: 'e'.repeat(64) })).rejects.toMatchObject({
      code: 'input-changed',
    });
  });

  it('start and finish write the manifest atomically, keeping earlier reports', async () => {
    await seed(manifest({ status: 'interrupted' }), JOURNAL_SENT);
    const c = await claim({ resume: true });
    const now = new Date().toISOString();
    const { createdAt, runs, reports, ...rest } = manifest();
    void createdAt;
    void runs;
    void reports;
    await c.start({
      ...rest,
      status: 'running',
      startedAt: now,
      updatedAt: now,
      report: '/r/next.csv',
    });
    let written = await readManifest(campaignPaths(stateDir, identity.id).manifest);
    expect(written).toMatchObject({
      status: 'running',
      runs: 2,
      createdAt: '2026-11-22T18:30:00.000Z',
      reports: ['/srv/reports/2026-11-22-tonight.csv', '/r/next.csv'],
    });
    const counts = { accepted: 4, rejected: 0, invalid: 0, failed: 0, unknown: 0, skipped: 0 };
    await c.finish({ at: '2026-12-02T00:00:00.000Z', status: 'finished', counts, records: 4 });
    written = await readManifest(campaignPaths(stateDir, identity.id).manifest);
    expect(written).toMatchObject({ status: 'finished', counts });
    expect(written?.finishedAt).toBeDefined();
    await c.release();
    expect(
      JSON.parse(await readFile(campaignPaths(stateDir, identity.id).manifest, 'utf8')),
    ).toEqual(written);
  });
});

describe('listCampaigns and pruneCampaigns', () => {
  it('list shows a running campaign with a dead lock as interrupted; prune keeps unfinished ones', async () => {
    await seed(manifest({ status: 'running' }), JOURNAL_SENT, deadPid());
    const [entry] = await listCampaigns(stateDir);
    expect(entry?.status).toBe('interrupted');
    expect(await pruneCampaigns(stateDir, new Date())).toEqual([]);
  });

  it('prune removes finished campaigns older than the cut-off only', async () => {
    await seed(manifest(), JOURNAL_SENT);
    expect(await pruneCampaigns(stateDir, new Date('2026-11-01'))).toEqual([]);
    expect(await pruneCampaigns(stateDir, new Date('2026-12-01'))).toEqual([identity.id]);
    expect(await listCampaigns(stateDir)).toEqual([]);
  });
});

describe('honest counts on resume', () => {
  it('settledRows: accepted, rejected, unknown and in-flight rows are settled; failed ones are left to send', async () => {
    const paths = await seed(undefined, JOURNAL_SENT);
    const journal = (await readJournalFile(paths.journal))!;
    const settled = settledRows(journal, false);
    expect([1, 2, 3, 4, 5].map(settled)).toEqual([true, false, true, true, false]);
    // --retry-unknown sends the in-flight ones again.
    expect([1, 2, 3, 4, 5].map(settledRows(journal, true))).toEqual([
      true,
      false,
      false,
      false,
      false,
    ]);
  });

  it('a batch taken back as unsent (refused, 503) is not in flight: resume sends it, not reports it unknown', async () => {
    const journal = [
      JOURNAL_SENT.split('\n')[0],
      '{"t":"batch","b":"1:1","r":[1,2]}',
      '{"t":"unsent","b":"1:1"}',
      '{"t":"batch","b":"1:1","r":[1,2]}',
      '{"t":"unsent","b":"1:1"}',
      '{"t":"batch","b":"1:2","r":[3,4]}',
      '',
    ].join('\n');
    const paths = await seed(undefined, journal);
    const state = (await readJournalFile(paths.journal))!;
    expect([...state.inFlight.keys()]).toEqual([3, 4]);
    expect([1, 2, 3, 4].map(settledRows(state, false))).toEqual([false, false, true, true]);
  });

  it("Tally: rows an earlier run settled are in the counts but not in this run's work or rate", () => {
    const tally = new Tally();
    const row = (n: number, outcome: 'accepted' | 'rejected') => ({
      row: n,
      to: '4741000000',
      messageId: `m${n}`,
      outcome,
      attempts: 1,
    });
    tally.add(row(1, 'accepted'), true);
    tally.add(row(2, 'rejected'), true);
    tally.add(row(3, 'accepted'));
    expect({ total: tally.total, done: tally.done, answered: tally.answered }).toEqual({
      total: 3,
      done: 1,
      answered: 1,
    });
    expect(tally.summary().byOutcome).toMatchObject({ accepted: 2, rejected: 1 });
  });
});
