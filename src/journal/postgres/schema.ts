// sms-send's tables in a schema of their own (`sms_send`), made on first use and versioned: a newer
// sms-send moves them forward, an older one refuses a schema it does not know.
import { UsageError } from '../../shared/errors.js';
import { sqlState, type Database, type Queries } from './connect.js';
import { lockSchema } from './sql/lock-schema.js';
import { makeMeta } from './sql/make-meta.js';
import { migrate, SCHEMA_VERSION } from './sql/migrations.js';
import { schemaVersion } from './sql/schema-version.js';
import { setSchemaVersion } from './sql/set-schema-version.js';

/** Makes the schema, or moves it forward, unless it is this version already (one read). */
export async function ensureSchema(db: Database): Promise<void> {
  const found = await readVersion(db);
  if (found === SCHEMA_VERSION) return;
  if (found !== undefined && found > SCHEMA_VERSION) throw newerSchema(found);
  await db.transaction(async (tx) => {
    await lockSchema(tx);
    await makeMeta(tx);
    const version = (await schemaVersion(tx)) ?? 0;
    if (version > SCHEMA_VERSION) throw newerSchema(version);
    await migrate(tx, version);
    await setSchemaVersion(tx, SCHEMA_VERSION);
  });
}

async function readVersion(db: Queries): Promise<number | undefined> {
  try {
    return await schemaVersion(db);
  } catch (error) {
    // No schema or no table yet: made below.
    if (sqlState(error) === '3F000' || sqlState(error) === '42P01') return undefined;
    throw error;
  }
}

function newerSchema(found: number): UsageError {
  return new UsageError(
    `the campaign state database holds sms-send's schema version ${found}, and this sms-send ` +
      `knows version ${SCHEMA_VERSION}: run the newer sms-send that wrote it. Nothing was sent.`,
    'state-version',
  );
}
