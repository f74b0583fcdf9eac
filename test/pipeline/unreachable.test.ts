// A first run against an endpoint that refuses connections, or whose host does not resolve, says
// so at once with what finds the cause, rather than only after the outage grace (a typo in the
// endpoint is likelier than an outage at that moment).
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir, writeCampaignCsv } from '../helpers/files.js';
import { runInProcess } from '../helpers/in-process.js';

let dir: Awaited<ReturnType<typeof tempDir>>;
beforeAll(async () => {
  dir = await tempDir();
  await writeCampaignCsv(join(dir.path, 'c.csv'), 3);
});
afterAll(async () => {
  await dir.remove();
});

/** A loopback port nothing listens on: one the system gave out and was handed back. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('an endpoint that cannot be reached', () => {
  it.each([
    [
      'nothing listens there',
      async () => `http://127.0.0.1:${await closedPort()}`,
      'connection refused',
    ],
    [
      'its host does not resolve',
      () => Promise.resolve('https://gateway.invalid'),
      'host not found (DNS)',
    ],
  ])(
    '%s: said at once, with its cause and check; then the grace, with the cause',
    async (_name, endpoint, cause) => {
      const url = await endpoint();
      const host = new URL(url).host;
      const run = await runInProcess(
        [
          'c.csv',
          '--endpoint',
          url,
          '--yes',
          '--retries',
          '1',
          '--outage-grace',
          '1s',
          '--report',
          `${cause.split(' ')[0]}.csv`,
        ],
        { cwd: dir.path, env: { SMS_SEND_USERNAME: 'u', SMS_SEND_PASSWORD: 'p' } },
      );
      expect(run.code).toBe(3);
      const lines = run.stderr.split('\n');
      expect(lines[0]).toBe(
        `nothing answers at ${host} (${cause}): if the endpoint is wrong, stop (Ctrl-C) and fix it; ` +
          '`sms-send check` says what is wrong. Trying again meanwhile',
      );
      expect(run.stderr).toContain(`the gateway is not answering (${cause}); waiting up to 1.0 s`);
      expect(run.stderr.match(/nothing answers at/g)).toHaveLength(1);
    },
  );
});
