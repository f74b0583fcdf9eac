// sms-send's tables in a schema of their own (`sms_send`), made on first use and versioned: a newer
// sms-send moves them forward, an older one refuses a schema it does not know.
import { UsageError } from '../../shared/errors.js';
import { sqlState, type Database, type Queries } from './connect.js';

/** The schema's version this sms-send reads and writes. */
export const SCHEMA_VERSION = 1;

/** One lock for every run that makes or moves the schema at the same moment. */
const SCHEMA_LOCK = 7_283_410_552;

/**
 * Each version's statements, in order: `MIGRATIONS[n]` takes a schema from version n to n + 1
 * (version 0: none). A campaign's row holds its manifest, its lease (holder, host, until when),
 * the fencing number every write checks, and which journal generation is current; the journal
 * holds one line per row, in the order written.
 */
const MIGRATIONS: readonly string[][] = [
  [
    `CREATE TABLE sms_send.campaigns (
       id text PRIMARY KEY,
       manifest jsonb,
       fence bigint NOT NULL DEFAULT 0,
       holder text,
       host text,
       lease_until timestamptz,
       generation integer NOT NULL DEFAULT 1,
       updated_at timestamptz NOT NULL DEFAULT now()
     )`,
    `CREATE TABLE sms_send.journal (
       campaign text NOT NULL REFERENCES sms_send.campaigns (id) ON UPDATE CASCADE ON DELETE CASCADE,
       generation integer NOT NULL,
       seq bigserial,
       line text NOT NULL,
       PRIMARY KEY (campaign, generation, seq)
     )`,
    `CREATE TABLE sms_send.secrets (
       id serial PRIMARY KEY,
       key bytea NOT NULL,
       made_at timestamptz NOT NULL DEFAULT now(),
       retired_at timestamptz
     )`,
    `CREATE UNIQUE INDEX secrets_current ON sms_send.secrets ((true)) WHERE retired_at IS NULL`,
  ],
];

/** Makes the schema, or moves it forward, unless it is this version already (one read). */
export async function ensureSchema(db: Database): Promise<void> {
  const found = await readVersion(db);
  if (found === SCHEMA_VERSION) return;
  if (found !== undefined && found > SCHEMA_VERSION) throw newerSchema(found);
  await db.transaction(async (client) => {
    await client.query('SELECT pg_advisory_xact_lock($1)', [SCHEMA_LOCK]);
    await client.query('CREATE SCHEMA IF NOT EXISTS sms_send');
    await client.query(
      'CREATE TABLE IF NOT EXISTS sms_send.meta (key text PRIMARY KEY, value text NOT NULL)',
    );
    const result = await client.query<{ value: string }>(
      "SELECT value FROM sms_send.meta WHERE key = 'version'",
    );
    const version = result.rows[0] ? Number(result.rows[0].value) : 0;
    if (version > SCHEMA_VERSION) throw newerSchema(version);
    for (let v = version; v < SCHEMA_VERSION; v++) {
      for (const statement of MIGRATIONS[v]!) await client.query(statement);
    }
    await client.query(
      "INSERT INTO sms_send.meta (key, value) VALUES ('version', $1) ON CONFLICT (key) DO UPDATE SET value = $1",
      [String(SCHEMA_VERSION)],
    );
  });
}

async function readVersion(db: Queries): Promise<number | undefined> {
  try {
    const result = await db.query<{ value: string }>(
      "SELECT value FROM sms_send.meta WHERE key = 'version'",
    );
    return result.rows[0] ? Number(result.rows[0].value) : undefined;
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
