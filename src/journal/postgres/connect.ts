// The database a state URL names: a pool of connections through node-postgres (loaded only here,
// only when a state URL is given). Every statement passes through here, so a failure of the
// database is known as the database's (failures.ts names it), and this host's own failures (its
// disk) stay its own.
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { Pool, QueryConfig, QueryResult, QueryResultRow } from 'pg';
import { plainWords } from '../../gateway/words.js';
import { describeSystemError, systemErrorCode } from '../../shared/errors.js';
import { maskUrl } from '../../shared/url.js';

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
    /** Whether the URL, PGPASSWORD or a password file gave a password (as far as can be seen). */
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
    return new Database(pool, maskUrl(url), passwordGiven(url));
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

/** Whether a password reaches the server: in the URL (or its `password=`), PGPASSWORD, a file. */
function passwordGiven(url: string): boolean {
  if (process.env['PGPASSWORD'] || process.env['PGPASSFILE']) return true;
  if (!URL.canParse(url)) return false;
  const parsed = new URL(url);
  if (parsed.password !== '' || parsed.searchParams.has('password')) return true;
  // node-postgres reads ~/.pgpass when no password is given: whether it holds one is unknown.
  return existsSync(join(homedir(), '.pgpass'));
}
