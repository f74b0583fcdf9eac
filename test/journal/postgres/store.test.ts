// PostgreSQL as a campaign store, against a real server the test starts: the contract every
// store keeps, each test in a database of its own.
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { campaignIdentity } from '../../../src/journal/identity.js';
import { tempDir } from '../../helpers/files.js';
import { startPostgres, type Postgres } from '../../helpers/postgres.js';
import { storeContract } from '../store-contract.js';
import { databaseStore } from '../../helpers/state.js';

let server: Postgres;
beforeAll(async () => {
  server = await startPostgres();
}, 60_000);
afterAll(() => server.stop());

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
