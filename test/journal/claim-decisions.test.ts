// claimCampaign and inspectCampaign word for word: each refusal's text, the hint of "nothing to
// resume", what start, finish and release leave in the campaign's folder.
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hostCache, type HostCache } from '../../src/journal/cache.js';
import {
  claimCampaign,
  inspectCampaign,
  type FolderPlace,
} from '../../src/journal/folder/claim.js';
import { countsText } from '../../src/journal/decide.js';
import { campaignIdentity } from '../../src/journal/identity.js';
import { campaignPaths, readManifest } from '../../src/journal/folder/campaigns.js';
import type { Manifest } from '../../src/journal/manifest.js';
import { tempDir } from '../helpers/files.js';

const HASH = 'f'.repeat(64);
const identity = campaignIdentity(HASH);
const ID = identity.id;
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

function manifest(over: Partial<Manifest> = {}): Manifest {
  return {
    v: 1,
    id: ID,
    named: false,
    contentHash: HASH,
    inputs: [{ path: '/in/a.csv', sha256: 'a1', bytes: 10 }],
    target: 'simulator',
    reports: ['/r/first.csv'],
    createdAt: '2026-11-20T08:00:00.000Z',
    startedAt: '2026-11-20T08:00:00.000Z',
    updatedAt: '2026-11-21T09:00:00.000Z',
    status: 'finished',
    finishedAt: '2026-11-22T10:00:00.000Z',
    runs: 1,
    records: 4000,
    counts: { accepted: 3000, rejected: 0, invalid: 0, failed: 0, unknown: 0, skipped: 0 },
    ...over,
  };
}

const START = `{"t":"start","v":2,"campaign":"${HASH}","run":1,"at":"x"}`;
const RESULTS = '{"t":"result","b":"1","r":[1,2],"o":[[1,"accepted"],[1,"rejected"]],"a":[[2,1]]}';

async function seed(state: Manifest | undefined, journal?: string[], id = ID) {
  const paths = campaignPaths(stateDir, id);
  await mkdir(paths.dir, { recursive: true });
  if (state) await writeFile(paths.manifest, JSON.stringify(state));
  if (journal) await writeFile(paths.journal, `${journal.join('\n')}\n`);
  return paths;
}

const options = (over: { force?: boolean; resume?: boolean; hash?: string } = {}) => ({
  identity: over.hash ? { ...identity, contentHash: over.hash } : identity,
  force: over.force ?? false,
  resume: over.resume ?? false,
});

describe('refusals, word for word', () => {
  it('finished with nothing failed and no report: --force only, report (none)', async () => {
    await seed(manifest({ reports: [] }), [START, RESULTS]);
    await expect(claimCampaign(place(stateDir), options())).rejects.toMatchObject({
      code: 'already-sent',
      message:
        `campaign ${ID} was already sent on 2026-11-22: 3,000 accepted; report (none). ` +
        'Nothing was sent. --force sends it all again, and 3,000 messages it sent or may have ' +
        'sent (accepted or unknown) would go twice.',
    });
  });

  it('interrupted: the counts the journal settled, of the records, without rows in flight', async () => {
    await seed(manifest({ status: 'running', finishedAt: undefined, reason: 'ignored' }), [
      START,
      RESULTS,
    ]);
    await expect(claimCampaign(place(stateDir), options())).rejects.toMatchObject({
      code: 'unfinished',
      message:
        `campaign ${ID} was interrupted on 2026-11-21: 1 accepted, 1 rejected of 4,000 records; ` +
        'report /r/first.csv. Nothing was sent. Finish it with --resume (nothing settled is sent ' +
        'again), or --force to send it all again, and 1 message it sent or may have sent ' +
        '(accepted or unknown) would go twice.',
    });
  });

  it('killed, nothing settled, no report: in flight counted from the journal', async () => {
    await seed(manifest({ status: 'running', finishedAt: undefined, reports: [] }), [
      START,
      '{"t":"batch","b":"1","r":[1,3]}',
    ]);
    await expect(claimCampaign(place(stateDir), options())).rejects.toMatchObject({
      code: 'unfinished',
      message: expect.stringMatching(
        new RegExp(
          `^campaign ${ID} was interrupted on 2026-11-21: 3 recorded, not known to have left of 4,000 records; ` +
            'report \\(none\\)\\. ',
        ),
      ) as unknown,
    });
  });

  // The reproduction: the stop's summary said "failed 1,440" (records the stop left unsent
  // among them), `campaigns` 1,440, and the refusal that followed "110 failed of 2,001 records".
  it('stopped by itself: the counts its end wrote, as its summary and `campaigns` gave them', async () => {
    const counts = { accepted: 558, rejected: 2, invalid: 1, failed: 1440, unknown: 0, skipped: 0 };
    await seed(manifest({ status: 'stopped', finishedAt: undefined, records: 2001, counts }), [
      START,
      RESULTS,
    ]);
    await expect(claimCampaign(place(stateDir), options())).rejects.toMatchObject({
      code: 'unfinished',
      message: expect.stringMatching(
        new RegExp(
          `^campaign ${ID} was stopped on 2026-11-21: 558 accepted, 2 rejected, 1 invalid, 1,440 failed of 2,001 records; `,
        ),
      ) as unknown,
    });
  });

  it('other content under the same ID: named by what the campaign was, sent or interrupted', async () => {
    await seed(manifest(), [START, RESULTS]);
    const text = (state: string, day: string) =>
      `campaign ${ID} was ${state} on ${day} from other inputs or settings, so its records ` +
      'cannot be matched; nothing was sent. Give this content its own --campaign name, or ' +
      '--force to send it under this name anyway.';
    await expect(
      claimCampaign(place(stateDir), options({ hash: 'e'.repeat(64) })),
    ).rejects.toMatchObject({
      code: 'input-changed',
      message: text('sent', '2026-11-22'),
    });
    await seed(manifest({ status: 'running', finishedAt: undefined }), [START, RESULTS]);
    await expect(
      claimCampaign(place(stateDir), options({ hash: 'e'.repeat(64) })),
    ).rejects.toMatchObject({
      message: text('interrupted', '2026-11-21'),
    });
  });

  it('the lock names the campaign a live run is sending', async () => {
    const paths = await seed(manifest({ status: 'running' }), [START, RESULTS]);
    await writeFile(paths.lock, JSON.stringify({ pid: 1, host: hostname(), since: 'then' }));
    await expect(claimCampaign(place(stateDir), options({ resume: true }))).rejects.toThrow(
      `another sms-send (pid 1 on ${hostname()}, since then) is sending campaign ${ID}; nothing was sent.`,
    );
  });
});

describe('nothing to resume', () => {
  const refusal = (hint: string) =>
    `nothing to resume: no run of campaign ${ID} is recorded in ${stateDir}. Nothing was sent.${hint}`;

  it('without inputs, or with inputs no campaign was sent from: it would be a new campaign', async () => {
    await seed(manifest({ id: 'other' }), [START, RESULTS], 'other');
    const plain = ' Without --resume this content is sent as a new campaign.';
    await expect(claimCampaign(place(stateDir), options({ resume: true }))).rejects.toMatchObject({
      code: 'nothing-to-resume',
      message: refusal(plain),
    });
    await expect(
      claimCampaign(place(stateDir), { ...options({ resume: true }), inputs: [{ sha256: 'zz' }] }),
    ).rejects.toMatchObject({ message: refusal(plain) });
    await expect(
      claimCampaign(place(stateDir), {
        ...options({ resume: true }),
        inputs: [{ sha256: 'a1' }, { sha256: 'b2' }],
      }),
    ).rejects.toMatchObject({ message: refusal(plain) });
  });

  it('names a campaign sent from the same files with other settings, and its --campaign name', async () => {
    const kinHint = (named: string) =>
      ' Campaign kin-1 (finished, started 2026-11-20) was sent from the same input files with ' +
      'other settings (sender, template, mapping, message defaults, --country, --gsm-normalize, ' +
      `--simulate or --campaign name): to finish it, run with exactly the settings it was started with${named}.`;
    const inputs = [
      { path: '/in/a.csv', sha256: 'a1', bytes: 10 },
      { path: '/in/b.csv', sha256: 'b2', bytes: 10 },
    ];
    await seed(manifest({ id: 'kin-1', inputs }), [START], 'kin-1');
    const same = { ...options({ resume: true }), inputs: [{ sha256: 'a1' }, { sha256: 'b2' }] };
    await expect(claimCampaign(place(stateDir), same)).rejects.toMatchObject({
      message: refusal(kinHint('')),
    });
    await seed(manifest({ id: 'kin-1', inputs, named: true }), [START], 'kin-1');
    await expect(claimCampaign(place(stateDir), same)).rejects.toMatchObject({
      message: refusal(kinHint(' (--campaign kin-1)')),
    });
  });
});

describe('inspectCampaign: what a run would meet, changing nothing', () => {
  it('nothing for a new campaign, and no folder made', async () => {
    expect(await inspectCampaign(stateDir, options())).toEqual({
      found: { finished: false, done: false },
    });
    expect(await readdir(stateDir).catch(() => [])).toEqual([]);
  });

  it('the refusal a real run would get, or the journal --resume would continue', async () => {
    const paths = await seed(manifest(), [START, RESULTS]);
    const { refusal } = await inspectCampaign(stateDir, options());
    expect(refusal).toMatchObject({ code: 'already-sent' });
    const {
      found: { journal },
      refusal: none,
    } = await inspectCampaign(stateDir, options({ resume: true }));
    expect(none).toBeUndefined();
    expect(journal?.results.size).toBe(2);
    expect(await readdir(paths.dir)).toEqual(['journal.ndjson', 'manifest.json']);
  });

  it('passes on a failure that is no refusal', async () => {
    const paths = campaignPaths(stateDir, ID);
    await mkdir(paths.manifest, { recursive: true });
    await expect(inspectCampaign(stateDir, options())).rejects.toMatchObject({ code: 'EISDIR' });
  });
});

describe('start, finish and release', () => {
  const fields = (report: string) => {
    const { createdAt, runs, reports, finishedAt, ...rest } = manifest({ status: 'running' });
    void [createdAt, runs, reports, finishedAt];
    return { ...rest, startedAt: '2026-12-01T00:00:00.000Z', report };
  };

  it('a first run: created when started, run 1, its one report; finish before start writes nothing', async () => {
    const c = await claimCampaign(place(stateDir), options());
    await c.finish({
      at: '2026-12-02T00:00:00.000Z',
      status: 'finished',
      counts: manifest().counts,
      records: 1,
    });
    expect(await readManifest(campaignPaths(stateDir, ID).manifest)).toBeUndefined();
    await c.start(fields('/r/a.csv'));
    expect(await readManifest(campaignPaths(stateDir, ID).manifest)).toMatchObject({
      createdAt: '2026-12-01T00:00:00.000Z',
      runs: 1,
      reports: ['/r/a.csv'],
    });
    await c.release();
    expect(await readdir(campaignPaths(stateDir, ID).dir)).toEqual(['manifest.json']);
  });

  it('a report written again moves to the end of the list, once', async () => {
    await seed(manifest({ status: 'interrupted', reports: ['/r/a.csv', '/r/b.csv'] }), [
      START,
      RESULTS,
    ]);
    const c = await claimCampaign(place(stateDir), options({ resume: true }));
    await c.start(fields('/r/a.csv'));
    expect(await readManifest(campaignPaths(stateDir, ID).manifest)).toMatchObject({
      createdAt: '2026-11-20T08:00:00.000Z',
      runs: 2,
      reports: ['/r/b.csv', '/r/a.csv'],
    });
    await c.release();
  });

  it('finish records the reason of a stop, and a finish time only when finished', async () => {
    const c = await claimCampaign(place(stateDir), options());
    await c.start(fields('/r/a.csv'));
    const counts = manifest().counts;
    await c.finish({
      at: '2026-12-02T00:00:00.000Z',
      status: 'stopped',
      counts,
      records: 4,
      reason: 'gateway down',
    });
    let written = await readManifest(campaignPaths(stateDir, ID).manifest);
    expect(written).toMatchObject({ status: 'stopped', reason: 'gateway down' });
    expect(written).not.toHaveProperty('finishedAt');
    await c.finish({ at: '2026-12-02T00:00:00.000Z', status: 'finished', counts, records: 4 });
    written = await readManifest(campaignPaths(stateDir, ID).manifest);
    expect(written).not.toHaveProperty('reason');
    expect(written!.finishedAt).toBe(written!.updatedAt);
    await c.release();
  });

  it('a run that never started leaves nothing, even a journal or manifest written meanwhile', async () => {
    const c = await claimCampaign(place(stateDir), options());
    await writeFile(campaignPaths(stateDir, ID).journal, `${START}\n`);
    await writeFile(
      campaignPaths(stateDir, ID).manifest,
      JSON.stringify(manifest({ status: 'running' })),
    );
    await writeFile(cache.files(ID).spool, 'spooled');
    await c.release();
    expect(await readdir(join(stateDir, 'campaigns'))).toEqual([]);
  });

  it('a run that never started keeps an earlier campaign, but not its spool', async () => {
    const paths = await seed(manifest({ status: 'interrupted' }), [START, RESULTS]);
    const c = await claimCampaign(place(stateDir), options({ resume: true }));
    await writeFile(cache.files(ID).spool, 'spooled');
    await c.release();
    expect(await readdir(paths.dir)).toEqual(['journal.ndjson', 'manifest.json']);
  });
});

describe('countsText', () => {
  it('lists the counts above zero, digits grouped, or says nothing was settled', () => {
    expect(countsText({ accepted: 3000, failed: 0, rejected: 12 })).toBe(
      '3,000 accepted, 12 rejected',
    );
    expect(countsText({ accepted: 0 })).toBe('nothing settled');
    expect(countsText({})).toBe('nothing settled');
  });
});
