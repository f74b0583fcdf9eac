// PostgreSQL as a campaign store, against a real server the test starts: the contract every
// store keeps, each test in a database of its own.
import { join } from 'node:path';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { campaignIdentity } from '../../../src/journal/identity.js';
import { tempDir } from '../../helpers/files.js';
import { usePostgres } from '../../helpers/postgres.js';
import { storeContract } from '../store-contract.js';
import { databaseStore } from '../../helpers/state.js';

const server = usePostgres();

const dirs: Array<Awaited<ReturnType<typeof tempDir>>> = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await dir.remove();
});

storeContract('PostgreSQL', async () => {
  const dir = await tempDir();
  dirs.push(dir);
  const stateUrl = await server.database();
  return databaseStore(stateUrl, join(dir.path, 'cache'));
});

describe("a run's record in PostgreSQL", () => {
  it('is kept only while the run holds the campaign: taken over, it keeps nothing more', async () => {
    const dir = await tempDir();
    dirs.push(dir);
    const stateUrl = await server.database();
    const store = databaseStore(stateUrl, join(dir.path, 'cache'));
    const identity = campaignIdentity('7'.repeat(64));
    const claim = await store.claim({ identity, force: false, resume: false });
    await claim.keepRun({ key: 'a', host: 'host-a', data: { sent: 1 } });
    // Another run took the campaign over: its fencing number moved on.
    const client = new pg.Client({ connectionString: stateUrl });
    await client.connect();
    await client.query('UPDATE sms_send.campaigns SET fence = fence + 1 WHERE id = $1', [
      identity.id,
    ]);
    await client.end();
    await claim.keepRun({ key: 'a', host: 'host-a', data: { sent: 2 } });
    expect(await store.runs(identity.id)).toEqual([
      { key: 'a', host: 'host-a', data: { sent: 1 } },
    ]);
    await claim.release().catch(() => undefined);
    await store.close();
  });
});

describe('delivery reports in PostgreSQL', () => {
  const report = (messageId: string, status: string, timestamp?: string) => ({
    messageId,
    status,
    timestamp,
    transactionId: undefined,
    receivedAt: '2026-11-29T10:00:00.000Z',
  });

  async function campaignStore() {
    const dir = await tempDir();
    dirs.push(dir);
    const stateUrl = await server.database();
    const store = databaseStore(stateUrl, join(dir.path, 'cache'));
    const identity = campaignIdentity('8'.repeat(64));
    const claim = await store.claim({ identity, force: false, resume: false });
    return { store, stateUrl, id: identity.id, claim };
  }

  async function readAll(store: ReturnType<typeof databaseStore>, id: string) {
    const read = [];
    for await (const kept of store.deliveries.read(id)) read.push(kept);
    return read;
  }

  it('keeps each report once, in the order kept, and none for a campaign it does not hold', async () => {
    const { store, id, claim } = await campaignStore();
    const shelf = store.deliveries;
    expect(await shelf.add(id, report('m1', 'ACCEPTD', '20261129100000'))).toBe(true);
    expect(await shelf.add(id, report('m1', 'DELIVRD', '20261129100005'))).toBe(true);
    // The gateway sent it again (to this receiver or another): kept before, still true.
    expect(await shelf.add(id, report('m1', 'DELIVRD', '20261129100005'))).toBe(true);
    expect(await shelf.add(id, report('m2', 'UNDELIV'))).toBe(true);
    expect(await shelf.add('no-such-campaign', report('m3', 'DELIVRD'))).toBe(false);
    expect(await readAll(store, id)).toEqual([
      report('m1', 'ACCEPTD', '20261129100000'),
      report('m1', 'DELIVRD', '20261129100005'),
      report('m2', 'UNDELIV'),
    ]);
    expect(await readAll(store, 'no-such-campaign')).toEqual([]);
    await claim.release();
    await store.close();
  });

  it("keeps a canary's reports by MessageId, each once, apart from every campaign's", async () => {
    const { store, id, claim } = await campaignStore();
    const shelf = store.deliveries;
    await shelf.addCanary(report('check-1', 'ENROUTE', '20261129100000'));
    await shelf.addCanary(report('check-1', 'DELIVRD', '20261129100005'));
    await shelf.addCanary(report('check-1', 'DELIVRD', '20261129100005'));
    await shelf.addCanary(report('check-2', 'UNDELIV'));
    expect(await shelf.canary('check-1')).toEqual([
      report('check-1', 'ENROUTE', '20261129100000'),
      report('check-1', 'DELIVRD', '20261129100005'),
    ]);
    expect(await shelf.canary('check-2')).toEqual([report('check-2', 'UNDELIV')]);
    expect(await shelf.canary('check-3')).toEqual([]);
    expect(await readAll(store, id)).toEqual([]);
    await claim.release();
    await store.close();
  });

  it("lets go of a canary's reports a week old as another is kept", async () => {
    const { store, stateUrl, claim } = await campaignStore();
    await store.deliveries.addCanary(report('check-old', 'DELIVRD'));
    const client = new pg.Client({ connectionString: stateUrl });
    await client.connect();
    await client.query(
      "UPDATE sms_send.canary_reports SET kept_at = now() - interval '8 days' WHERE message_id = 'check-old'",
    );
    await client.end();
    await store.deliveries.addCanary(report('check-new', 'DELIVRD'));
    expect(await store.deliveries.canary('check-old')).toEqual([]);
    expect(await store.deliveries.canary('check-new')).toHaveLength(1);
    await claim.release();
    await store.close();
  });

  it('reads a campaign of more reports than a page, every one in order', async () => {
    const { store, stateUrl, id, claim } = await campaignStore();
    const client = new pg.Client({ connectionString: stateUrl });
    await client.connect();
    await client.query(
      `INSERT INTO sms_send.deliveries
         (campaign, generation, message_id, status, timestamp, received_at)
       SELECT id, generation, 'm' || n, 'DELIVRD', '', 'at'
         FROM sms_send.campaigns, generate_series(1, 12001) AS n WHERE id = $1`,
      [id],
    );
    await client.end();
    const read = await readAll(store, id);
    expect(read).toHaveLength(12001);
    expect(read.map((r) => r.messageId)).toEqual(
      Array.from({ length: 12001 }, (_, i) => `m${i + 1}`),
    );
    await claim.release();
    await store.close();
  });
});
