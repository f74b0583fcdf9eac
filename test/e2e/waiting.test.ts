// A gateway that takes the connection and never answers: a terminal is told what sms-send waits
// for, and for how long at most, instead of silence until --timeout; --json keeps stdout to its
// one document. On a pseudo-terminal through script(1), and through pipes.
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { tempDir, writeCampaignCsv } from '../helpers/files.js';
import { onTerminal, SCRIPT } from '../helpers/terminal.js';

const MISSING = 'script(1) from util-linux is not installed: the pseudo-terminal tests did not run';
if (!SCRIPT) process.stderr.write(`test/e2e/waiting.test.ts: ${MISSING}\n`);

let dir: Awaited<ReturnType<typeof tempDir>>;
let server: Server;
const sockets = new Set<Socket>();
let endpoint: string;

beforeAll(async () => {
  dir = await tempDir();
  // Accepts every connection and never answers a byte.
  server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  endpoint = `http://127.0.0.1:${address.port}`;
});

afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => server.close(resolve));
  await dir.remove();
});

const ENV = { SMS_SEND_USERNAME: 'u', SMS_SEND_PASSWORD: 'p' };

describe.skipIf(!SCRIPT)('on a terminal, a gateway that never answers', () => {
  it('check says what it waits for, and for how long at most', async () => {
    const run = await onTerminal(['check', '--endpoint', endpoint, '--timeout', '1s'], {
      cwd: dir.path,
      env: { ...ENV, NO_COLOR: '1' },
    });
    expect(run.code).toBe(3);
    expect(run.screen).toContain(`waiting for ${endpoint} to answer (up to 1 s)`);
    expect(run.screen).toContain('no answer within 1s (timeout)');
  });

  it('check --json: the document alone, no waiting line', async () => {
    const run = await onTerminal(['check', '--endpoint', endpoint, '--timeout', '1s', '--json'], {
      cwd: dir.path,
      env: { ...ENV, NO_COLOR: '1' },
    });
    expect(run.code).toBe(3);
    expect(run.screen).not.toContain('waiting for');
    expect(JSON.parse(run.screen)).toMatchObject({
      check: { ok: false, reason: 'no answer within 1s (timeout)' },
    });
  });

  it("a send's progress line says it waits for the gateway's first answer, and how long", async () => {
    const input = join(dir.path, 'campaign.csv');
    await writeCampaignCsv(input, 4);
    const run = await onTerminal([input, '--endpoint', endpoint, '--timeout', '1s'], {
      cwd: dir.path,
      env: { ...ENV, NO_COLOR: '1', SMS_SEND_STATE_DIR: join(dir.path, 'state') },
    });
    expect(run.code).toBe(1); // every record unknown
    expect(run.screen).toContain(
      "sending 0 / 4 (0%)  accepted 0  waiting for the gateway's first answer (up to 1 s)",
    );
  });
});

describe('through pipes, a gateway that never answers', () => {
  it('check --json: stdout is the one document', async () => {
    const run = await runCli(['check', '--endpoint', endpoint, '--timeout', '1s', '--json'], {
      cwd: dir.path,
      env: ENV,
    });
    expect(run.code).toBe(3);
    expect(JSON.parse(run.stdout)).toMatchObject({
      check: { ok: false, reason: 'no answer within 1s (timeout)' },
    });
    expect(run.stderr).not.toContain('waiting for');
  });
});
