// The database a state URL names: a pool of connections through node-postgres (loaded only here,
// only when a state URL is given). Every statement passes through here, so a failure of the
// database is named as the database's, and this host's own failures (its disk) stay its own.
import type { Pool, QueryConfig, QueryResult, QueryResultRow } from 'pg';
import { plainWords } from '../../gateway/words.js';
import { describeSystemError, StateStoreError, systemErrorCode } from '../../shared/errors.js';
import { maskUserInfo } from '../../shared/url.js';

/** At most this many connections per run: the journal's, the lease's renewal, and one to read. */
const CONNECTIONS = 3;

/** A statement, and its values. */
export type Statement = string | QueryConfig;

/** What runs statements: the database, or one transaction on one of its connections. */
export interface Queries {
  query<R extends QueryResultRow = QueryResultRow>(
    statement: Statement,
    values?: readonly unknown[],
  ): Promise<QueryResult<R>>;
}

/**
 * A statement the database did not carry out, or a connection that failed: the driver's error
 * as `cause`, its SQLSTATE when the server gave one.
 */
export class DatabaseFailure extends Error {
  readonly sqlState: string | undefined;
  constructor(override readonly cause: unknown) {
    super(failureWords(cause), { cause });
    this.name = 'DatabaseFailure';
    this.sqlState = sqlStateOf(cause);
  }
}

/** The server's own message, or a network failure in words with its code. */
function failureWords(cause: unknown): string {
  const code = sqlStateOf(cause) === undefined ? systemErrorCode(cause) : undefined;
  if (code === undefined) return describeSystemError(cause);
  const message = cause instanceof Error ? cause.message : String(cause);
  return `${plainWords(code, message)} (${code})`;
}

function failure(error: unknown): DatabaseFailure {
  return error instanceof DatabaseFailure ? error : new DatabaseFailure(error);
}

/** The database, as the store uses it: statements, transactions, and how output names it. */
export class Database implements Queries {
  private constructor(
    private readonly pool: Pool,
    /** The URL as output names it: its password masked. */
    readonly where: string,
    /** Whether the URL or PGPASSWORD gave a password. */
    readonly passwordGiven: boolean,
  ) {}

  /**
   * A pool for the URL. PostgreSQL's own environment (PGHOST, PGUSER, PGPASSWORD, PGDATABASE,
   * PGSSLMODE …) fills what the URL leaves out, as node-postgres reads it. A statement that takes
   * longer than half the lease is abandoned: a run that waits longer for its state cannot know
   * it still holds the campaign.
   */
  static async open(url: string, leaseMs: number): Promise<Database> {
    const { default: pg } = await import('pg');
    const pool = new pg.Pool({
      connectionString: url,
      max: CONNECTIONS,
      application_name: 'sms-send',
      connectionTimeoutMillis: Math.max(1000, leaseMs / 2),
      query_timeout: Math.max(1000, leaseMs / 2),
      keepAlive: true,
    });
    // An idle connection the server or the network drops is an error on the pool, not a crash:
    // the next statement reports its own failure.
    pool.on('error', () => undefined);
    const password = URL.canParse(url) && new URL(url).password !== '';
    return new Database(pool, maskUserInfo(url), password || Boolean(process.env.PGPASSWORD));
  }

  async query<R extends QueryResultRow = QueryResultRow>(
    statement: Statement,
    values?: readonly unknown[],
  ): Promise<QueryResult<R>> {
    try {
      return await this.pool.query<R>(statement, values as unknown[] | undefined);
    } catch (error) {
      throw failure(error);
    }
  }

  /** Runs `work` in one transaction on one connection; rolled back when it throws. */
  async transaction<T>(work: (tx: Queries) => Promise<T>): Promise<T> {
    const client = await this.pool.connect().catch((error: unknown) => {
      throw failure(error);
    });
    // pg-pool listens for a connection's errors only while it is idle: one that fails while
    // checked out (a server restarting mid-transaction) is this listener's, not a crash.
    let broken: Error | undefined;
    const onError = (error: Error) => (broken ??= error);
    client.on('error', onError);
    const tx: Queries = {
      query: (statement, values) =>
        client.query(statement, values as unknown[] | undefined).catch((error: unknown) => {
          throw failure(error);
        }),
    };
    try {
      await tx.query('BEGIN');
      const result = await work(tx);
      await tx.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      if (error instanceof DatabaseFailure) broken ??= error;
      throw error;
    } finally {
      client.off('error', onError);
      // A connection that failed is closed, not handed to the next statement.
      client.release(broken);
    }
  }

  async end(): Promise<void> {
    await this.pool.end().catch(() => undefined);
  }
}

/** PostgreSQL's SQLSTATE of an error, when it came from the server. */
function sqlStateOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}

/** The SQLSTATE of a failure the database gave, when it gave one. */
export function sqlState(error: unknown): string | undefined {
  return error instanceof DatabaseFailure ? error.sqlState : sqlStateOf(error);
}

/** Why a database refuses the settings whatever the moment: retrying them does not help. */
const REFUSALS: Record<string, (db: Database, why: string) => [string, string]> = {
  // invalid_password, invalid_authorization_specification (no such role, no pg_hba entry)
  '28P01': credentials,
  '28000': credentials,
  // invalid_catalog_name
  '3D000': (db, why) => [
    `the campaign state database ${db.where} does not exist (${why})`,
    'Create it (CREATE DATABASE … OWNER <user>), or name an existing one in the state URL.',
  ],
};

function credentials(db: Database, why: string): [string, string] {
  return [
    `the campaign state database ${db.where} refused the credentials (${why})`,
    db.passwordGiven
      ? 'Check the user and password the state URL gives (or PGUSER and PGPASSWORD): the same ones are refused again.'
      : 'No password was given: put it in the URL SMS_SEND_STATE_URL or the config file holds, or in PGPASSWORD.',
  ];
}

/** The driver's words when the server asks for a password and none was given. */
const NO_PASSWORD = /client password must be a string|password must be a string/i;

/** TLS settings the server or its certificate does not match: the same URL fails again. */
const TLS_REFUSED =
  /does not support SSL|self[- ]signed certificate|unable to verify|certificate has expired|Hostname\/IP does not match/i;

/**
 * What a failure of the database means, in its words: the settings refused (credentials, a
 * database that does not exist, TLS that does not match: retrying does not help), or the database
 * did not answer (unreachable, cut off, restarting, a statement timed out: the same command may
 * pass later). Anything else (this host's disk, sms-send's own errors) passes as it is.
 */
export function databaseError(error: unknown, db: Database): unknown {
  if (!(error instanceof DatabaseFailure)) return error;
  const why = error.message;
  const refusal = error.sqlState && REFUSALS[error.sqlState];
  if (refusal) {
    const [message, advice] = refusal(db, why);
    return new StateStoreError(message, true, advice, { cause: error });
  }
  if (NO_PASSWORD.test(why)) {
    const [message, advice] = credentials(db, 'it asks for a password and none was given');
    return new StateStoreError(message, true, advice, { cause: error });
  }
  if (TLS_REFUSED.test(why)) {
    return new StateStoreError(
      `the campaign state database ${db.where} could not be reached over TLS as its URL asks (${why})`,
      true,
      "Check the URL's sslmode and sslrootcert against the server's certificate.",
      { cause: error },
    );
  }
  return new StateStoreError(
    `the campaign state database ${db.where} did not answer (${why})`,
    false,
    DATABASE_DOWN_ADVICE,
    { cause: error },
  );
}

/** What to do about a database that did not answer. */
export const DATABASE_DOWN_ADVICE = 'Run it again once the database answers.';

/** `work`, a failure of the database named as databaseError says. */
export async function guarded<T>(db: Database, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw databaseError(error, db);
  }
}
