// A real PostgreSQL for the tests, started by them (bench/postgres-server.js, shared with the
// benchmark): each test takes a database of its own, and the file stops the server at the end.
import { afterAll, beforeAll } from 'vitest';
import { startPostgres, type Postgres } from '../../bench/postgres-server.js';

export { startPostgres, type Postgres };

/**
 * The test file's (or describe block's) server: started before its tests, `prepare`d (roles it
 * needs), stopped after them. Its members reach the server once it has started.
 */
export function usePostgres(prepare?: (server: Postgres) => Promise<void>): Postgres {
  let started: Postgres | undefined;
  beforeAll(async () => {
    started = await startPostgres();
    await prepare?.(started);
  }, 60_000);
  afterAll(() => started?.stop());
  const server = (): Postgres => {
    if (!started) throw new Error('the test PostgreSQL has not started (use it inside a test)');
    return started;
  };
  return {
    get url() {
      return server().url;
    },
    get port() {
      return server().port;
    },
    get binaries() {
      return server().binaries;
    },
    database: () => server().database(),
    query: (url, sql, values) => server().query(url, sql, values),
    restart: () => server().restart(),
    stop: () => server().stop(),
  };
}
