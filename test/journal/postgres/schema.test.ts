// sms-send's schema in a real PostgreSQL: made once by runs that start together, refused when a
// newer sms-send made it, and a user without the right to make it is told which grant it needs.
import { join } from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { SCHEMA_VERSION } from '../../../src/journal/postgres/sql/migrations.js';
import { ExitCode, StateStoreError } from '../../../src/shared/errors.js';
import { usePostgres } from '../../helpers/postgres.js';
import { databaseStore } from '../../helpers/state.js';

const server = usePostgres();

const store = (stateUrl: string) => databaseStore(stateUrl, join('/nonexistent', 'cache'));

async function sql(url: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

describe("sms-send's schema", () => {
  it('is made once by eight runs that start together, at this version', async () => {
    const url = await server.database();
    const stores = Array.from({ length: 8 }, () => store(url));
    expect(await Promise.all(stores.map((s) => s.campaigns()))).toEqual(stores.map(() => []));
    await Promise.all(stores.map((s) => s.close()));
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const version = await client.query("SELECT value FROM sms_send.meta WHERE key = 'version'");
    await client.end();
    expect(version.rows).toEqual([{ value: String(SCHEMA_VERSION) }]);
  });

  it('of a newer version is refused (exit 2), naming both versions', async () => {
    const url = await server.database();
    await store(url).campaigns();
    await sql(url, "UPDATE sms_send.meta SET value = '7' WHERE key = 'version'");
    const newer = store(url);
    const error = await newer
      .campaigns()
      .catch((e: unknown) => e as { exitCode: number; message: string });
    expect(error).toMatchObject({ exitCode: ExitCode.usage });
    expect((error as { message: string }).message).toMatch(
      new RegExp(`schema version 7, and this sms-send knows version ${SCHEMA_VERSION}`),
    );
    await newer.close();
  });

  it('a user without the right to make it is refused (exit 2), naming the grant', async () => {
    const url = await server.database();
    await sql(server.url, "CREATE ROLE plain LOGIN PASSWORD 'plain-pw'").catch(() => undefined);
    const asPlain = url.replace('postgres@', 'plain:plain-pw@');
    const refused = store(asPlain);
    const error = await refused.campaigns().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StateStoreError);
    expect(error).toMatchObject({ refused: true, code: 'state-permission' });
    expect((error as StateStoreError).advice).toMatch(
      /^GRANT CREATE ON DATABASE t\d+_\d+ TO plain/,
    );
    await refused.close();
  });
});
