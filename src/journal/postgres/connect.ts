// The database a state URL names: a pool of connections through node-postgres (loaded only here,
// only when a state URL is given), and what its failures mean for a run.
import type { Pool, PoolClient } from 'pg';
import {
  describeSystemError,
  SmsSendError,
  StateUnwritableError,
  UsageError,
} from '../../shared/errors.js';
import { HoldLostError } from '../store.js';
import { maskUserInfo } from '../../shared/url.js';

export type { Pool, PoolClient } from 'pg';

/** At most this many connections per run: the journal's, the lease's renewal, and one to read. */
const CONNECTIONS = 3;

export interface Database {
  pool: Pool;
  /** The URL as output names it: its password masked. */
  where: string;
}

/**
 * A pool for the URL. PostgreSQL's own environment (PGHOST, PGUSER, PGPASSWORD, PGDATABASE,
 * PGSSLMODE …) fills what the URL leaves out, as node-postgres reads it. A statement that takes
 * longer than half the lease is abandoned: a run that waits longer for its state cannot know it
 * still holds the campaign.
 */
export async function openDatabase(url: string, leaseMs: number): Promise<Database> {
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
  return { pool, where: maskUserInfo(url) };
}

/** PostgreSQL's SQLSTATE of an error, when it came from the server. */
export function sqlState(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}

/**
 * What a failure to reach or use the database means: no right to create the schema (exit 2, the
 * grant named), or the state cannot be written now (exit 6: credentials refused, no such database,
 * unreachable, cut off): what was recorded stays, and the same command finishes the campaign once
 * the database answers. A takeover (HoldLostError) and sms-send's own errors pass as they are.
 */
export function databaseError(error: unknown, where: string): Error {
  if (error instanceof SmsSendError || error instanceof HoldLostError) return error;
  const state = sqlState(error);
  const why = describeSystemError(error);
  if (state === '28P01' || state === '28000') {
    return new StateUnwritableError(
      `the campaign state database ${where} refused the credentials: ${why}`,
    );
  }
  if (state === '3D000') {
    return new StateUnwritableError(`the campaign state database ${where} does not exist: ${why}`);
  }
  if (state === '42501') {
    return new UsageError(
      `the campaign state database ${where} does not let this user create sms-send's schema ` +
        `(${why}): GRANT CREATE ON DATABASE <database> TO <user>, or create the schema sms_send ` +
        'owned by it. Nothing was sent.',
      'state-permission',
    );
  }
  return new StateUnwritableError(`the campaign state database ${where} cannot be used: ${why}`);
}

/** `work`, its failures as databaseError says. */
export async function guarded<T>(where: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw databaseError(error, where);
  }
}

/** Runs `work` in one transaction on one connection; rolled back when it throws. */
export async function transaction<T>(
  pool: Pool,
  work: (client: PoolClient) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}
