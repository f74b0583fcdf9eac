// What every campaign store promises, as tests any store's file runs against its own store: the
// state directory's and PostgreSQL's behave the same to the send pass and the commands.
import { describe, expect, it } from 'vitest';
import type { ClaimOptions } from '../../src/journal/decide.js';
import { campaignIdentity } from '../../src/journal/identity.js';
import { batchLine, resultLine } from '../../src/journal/lines.js';
import type { Manifest } from '../../src/journal/manifest.js';
import { campaignById, findCampaign } from '../../src/journal/lookup.js';
import type { CampaignStore } from '../../src/journal/store.js';
import { ExitCode } from '../../src/shared/errors.js';

const COUNTS = { accepted: 1, rejected: 0, invalid: 0, failed: 0, unknown: 1, skipped: 0 };

function options(hash: string, over: Partial<ClaimOptions> = {}): ClaimOptions {
  return { identity: campaignIdentity(hash), force: false, resume: false, ...over };
}

function startFields(id: string, hash: string, report: string) {
  return {
    v: 1 as const,
    id,
    named: false,
    contentHash: hash,
    inputs: [{ path: '/in/a.csv', sha256: 'a1', bytes: 10 }],
    target: 'simulator',
    status: 'running' as const,
    startedAt: '2026-11-28T08:00:00.000Z',
    updatedAt: '2026-11-28T08:00:00.000Z',
    records: 2,
    counts: { accepted: 0, rejected: 0, invalid: 0, failed: 0, unknown: 0, skipped: 0 },
    report,
  } satisfies Omit<Manifest, 'createdAt' | 'runs' | 'reports'> & { report: string };
}

const accepted = { row: 1, outcome: 'accepted' as const, attempts: 1, transactionId: 't1' };

/** Sends two records of a campaign as a run would: the first answered, the second left in flight. */
async function halfSent(store: CampaignStore, hash: string, status: 'stopped' | 'finished') {
  const claim = await store.claim(options(hash));
  const { id } = campaignIdentity(hash);
  await claim.start(startFields(id, hash, '/r/report.csv'));
  const journal = await claim.openJournal();
  await journal.append({ t: 'start', v: 2, campaign: hash, run: 1, at: 'x' });
  await journal.append(batchLine('1:1', [1, 2]));
  await journal.append(resultLine('1:1', [accepted]));
  expect(await journal.settle()).toBe(true);
  await journal.close();
  await claim.finish({ status, counts: COUNTS, records: 2, at: '2026-11-28T09:00:00.000Z' });
  await claim.release();
  return id;
}

/** The contract, run against the store `open` makes (a fresh one for each test). */
export function storeContract(name: string, open: () => Promise<CampaignStore>): void {
  describe(`${name}: the campaign store contract`, () => {
    it('a campaign sent, listed, found by a prefix, shown with its counts', async () => {
      const store = await open();
      expect(await store.campaigns()).toEqual([]);
      const id = await halfSent(store, 'a'.repeat(64), 'finished');
      const [entry] = await store.campaigns();
      expect(entry).toMatchObject({ status: 'finished', counts: COUNTS });
      expect(entry!.manifest).toMatchObject({ id, runs: 1, reports: ['/r/report.csv'] });
      expect((await findCampaign(store, id.slice(0, 4))).manifest.id).toBe(id);
      expect((await campaignById(store, id))?.manifest.id).toBe(id);
      expect(await campaignById(store, 'nope')).toBeUndefined();
      expect((await store.detail(entry!)).setAside).toEqual({ journals: 0, bytes: 0 });
      await store.close();
    });

    it('a campaign held by one run is refused to another with exit 4, and free once released', async () => {
      const store = await open();
      const hash = 'b'.repeat(64);
      const first = await store.claim(options(hash));
      await expect(store.claim(options(hash))).rejects.toMatchObject({ exitCode: ExitCode.locked });
      await first.release();
      const again = await store.claim(options(hash));
      await again.release();
      await store.close();
    });

    it('a run that never started leaves nothing behind', async () => {
      const store = await open();
      const hash = 'c'.repeat(64);
      const claim = await store.claim(options(hash));
      expect(claim.found.previous).toBeUndefined();
      await claim.release();
      expect(await store.campaigns()).toEqual([]);
      await store.close();
    });

    it('a finished campaign is refused (exit 2); a stopped one resumes from its journal', async () => {
      const store = await open();
      await halfSent(store, 'd'.repeat(64), 'finished');
      await expect(store.claim(options('d'.repeat(64)))).rejects.toMatchObject({
        exitCode: ExitCode.usage,
        code: 'already-sent',
      });
      const id = await halfSent(store, 'e'.repeat(64), 'stopped');
      const claim = await store.claim(options('e'.repeat(64), { resume: true }));
      expect(claim.found.previous?.id).toBe(id);
      expect(claim.found.journal?.results.outcome(1)).toBe('accepted');
      expect([...(claim.found.journal?.inFlight.keys() ?? [])]).toEqual([2]);
      expect((await claim.readJournal()).runs).toBe(1);
      await claim.release();
      await store.close();
    });

    it('--force sets the earlier journal aside, counted by show', async () => {
      const store = await open();
      const hash = 'f'.repeat(64);
      await halfSent(store, hash, 'finished');
      const claim = await store.claim(options(hash, { force: true }));
      await claim.start(startFields(campaignIdentity(hash).id, hash, '/r/again.csv'));
      const journal = await claim.openJournal(1_764_000_000_000);
      await journal.close();
      expect((await claim.readJournal()).sent).toBe(false);
      await claim.finish({
        status: 'finished',
        counts: COUNTS,
        records: 2,
        at: '2026-11-28T10:00:00.000Z',
      });
      await claim.release();
      const [entry] = await store.campaigns();
      expect(entry!.manifest.runs).toBe(2);
      expect((await store.detail(entry!)).setAside.journals).toBe(1);
      await store.close();
    });

    it('a hold on a campaign keeps its runs out until released', async () => {
      const store = await open();
      const hash = '1'.repeat(64);
      const id = await halfSent(store, hash, 'stopped');
      const lock = await store.hold(id, 're-sending records');
      await expect(store.claim(options(hash, { resume: true }))).rejects.toMatchObject({
        exitCode: ExitCode.locked,
      });
      await lock.release();
      await (await store.claim(options(hash, { resume: true }))).release();
      await store.close();
    });

    it('one delivery-report secret, made on first use, the same on every read', async () => {
      const store = await open();
      const none = await store.dlrKeys();
      expect(none.keys).toEqual([]);
      const made = await store.dlrKeys(true);
      const key = made.keys[0]!;
      expect((await store.dlrKeys(true)).keys[0]!.export()).toEqual(key.export());
      expect((await store.dlrKeys()).keys.map((k) => k.export())).toEqual([key.export()]);
      expect(made.version).not.toBe(none.version);
      await store.close();
    });

    it('a campaign another sent the rest of is told so under its hold, and not continued', async () => {
      const store = await open();
      const hash = '5'.repeat(64);
      const id = await halfSent(store, hash, 'stopped');
      const held = await store.hold(id, 'sending the rest of it');
      await held.supersede('other');
      await held.supersede('other');
      await held.release();
      expect((await campaignById(store, id))?.manifest.supersededBy).toEqual(['other']);
      await expect(store.claim(options(hash, { resume: true }))).rejects.toMatchObject({
        exitCode: ExitCode.usage,
        code: 'superseded',
      });
      await (await store.claim(options(hash, { force: true }))).release();
      await store.close();
    });

    it("keeps each run's record for the page, replaced as the run keeps it again, in the order runs began", async () => {
      const store = await open();
      const hash = '6'.repeat(64);
      const { id } = campaignIdentity(hash);
      expect(await store.runs(id)).toEqual([]);
      const first = await store.claim(options(hash));
      await first.start(startFields(id, hash, '/r/report.csv'));
      // A run keeps a record once it has sent: its journal says so.
      const journal = await first.openJournal();
      await journal.append({ t: 'start', v: 2, campaign: hash, run: 1, at: 'x' });
      await journal.append(batchLine('1:1', [1, 2]));
      await journal.append(resultLine('1:1', [accepted]));
      expect(await journal.settle()).toBe(true);
      await journal.close();
      await first.keepRun({ key: 'a', host: 'host-a', data: { sent: 1 } });
      await first.keepRun({ key: 'a', host: 'host-a', data: { sent: 2 } });
      await first.finish({
        status: 'stopped',
        counts: COUNTS,
        records: 2,
        at: '2026-11-28T09:00:00.000Z',
      });
      await first.release();
      const second = await store.claim(options(hash, { resume: true }));
      await second.keepRun({ key: 'b', host: 'host-b', data: { sent: 3 } });
      await second.release();
      expect(await store.runs(id)).toEqual([
        { key: 'a', host: 'host-a', data: { sent: 2 } },
        { key: 'b', host: 'host-b', data: { sent: 3 } },
      ]);
      await store.close();
    });

    it('rows a delivery report confirmed are recorded as accepted in the campaign of the report', async () => {
      const store = await open();
      const hash = '2'.repeat(64);
      const id = await halfSent(store, hash, 'stopped');
      const confirmed = {
        row: 2,
        outcome: 'accepted' as const,
        attempts: 1,
        to: '4790000002',
        messageId: 'm-2',
      };
      expect(await store.recordConfirmed('/r/report.csv', [confirmed])).toBe(id);
      expect((await campaignById(store, id))?.counts).toMatchObject({ accepted: 2, unknown: 0 });
      const claim = await store.claim(options(hash, { resume: true }));
      expect(claim.found.journal?.results.outcome(2)).toBe('accepted');
      await claim.release();
      await store.close();
    });

    it('prunes finished campaigns older than the date, and keeps the unfinished', async () => {
      const store = await open();
      const done = await halfSent(store, '3'.repeat(64), 'finished');
      const stopped = await halfSent(store, '4'.repeat(64), 'stopped');
      expect(await store.prune(new Date('2026-11-28T00:00:00Z'))).toEqual([]);
      expect(await store.prune(new Date('2026-12-01T00:00:00Z'))).toEqual([done]);
      expect((await store.campaigns()).map((e) => e.manifest.id)).toEqual([stopped]);
      await store.close();
    });

    it('a dry run of prune names what it would remove and removes nothing; only keeps to a list', async () => {
      const store = await open();
      const done = await halfSent(store, '5'.repeat(64), 'finished');
      const also = await halfSent(store, '6'.repeat(64), 'finished');
      const ids = async () => (await store.campaigns()).map((e) => e.manifest.id).sort();
      const after = new Date('2026-12-01T00:00:00Z');
      expect(await store.prune(after, { dryRun: true })).toEqual([done, also]);
      expect(await ids()).toEqual([done, also]);
      expect(await store.prune(after, { only: [also] })).toEqual([also]);
      expect(await ids()).toEqual([done]);
      await store.close();
    });
  });
}
