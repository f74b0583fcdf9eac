// PostgreSQL as a campaign store, against a real server the test starts: the contract every
// store keeps, each test in a database of its own.
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll } from 'vitest';
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
