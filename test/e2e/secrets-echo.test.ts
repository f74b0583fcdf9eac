// A gateway that echoes the request body, in every form, through every failure path: a password with
// `"` and `\` is found in no form in any output stream or file of send and check.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdir, readdir, readFile, realpath } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliResult } from '../helpers/cli.js';
import { runInProcess } from '../helpers/in-process.js';
import { tempDir, writeCampaignCsv } from '../helpers/files.js';

const USER = 'acme-user';
const PASSWORD = 'Zq7"xK\\p9$Wm#Leak-Me';
const CREDENTIALS = { SMS_SEND_USERNAME: USER, SMS_SEND_PASSWORD: PASSWORD };
const BASIC = Buffer.from(`${USER}:${PASSWORD}`).toString('base64');

/**
 * What must appear nowhere. Besides whole forms, fragments of the password that no ordinary text
 * holds: a form cut short by an excerpt, or altered by flattening, would still be caught.
 */
const FORBIDDEN = [
  PASSWORD,
  JSON.stringify(PASSWORD).slice(1, -1),
  JSON.stringify(JSON.stringify(PASSWORD).slice(1, -1)).slice(1, -1),
  BASIC.replace(/=+$/, ''),
  BASIC.slice(0, 16),
  'Leak-Me',
  'p9$Wm',
  'p9%24Wm',
  'Zq7',
];

type Mode = 'description' | 'http400' | 'malformed' | 'http500' | 'refusal';

function xml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

/** The request body quoted every way a gateway or its framework might: raw, escaped, encoded. */
function echo(body: string, authorization: string): string {
  return [
    `request: ${body}`,
    `escaped: ${JSON.stringify(body)}`,
    `html: ${xml(body)}`,
    `url: ${encodeURIComponent(body)}`,
    `csv: "${body.replaceAll('"', '""')}"`,
    `password: ${PASSWORD}`,
    `auth: ${authorization}`,
  ].join('\n');
}

/**
 * A gateway whose n-th request goes down the n-th failure path (the last one repeats): a
 * StatusDescription quoting the body, HTTP 400 with it, a malformed body holding it, 500 with it,
 * and ProcessResult false quoting it (which names the password, so the run stops there).
 */
async function echoGateway(modes: readonly Mode[]): Promise<{ url: string; server: Server }> {
  let requests = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const text = echo(body, `Basic ${BASIC}`);
      const mode = modes[Math.min(requests++, modes.length - 1)]!;
      const json = (status: number, value: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(value));
      };
      if (mode === 'description') {
        const { Messages } = JSON.parse(body) as { Messages: { MessageId: string }[] };
        json(200, {
          ProcessResult: true,
          ProcessResultDescription: '',
          Messages: Messages.map((m) => ({
            MessageId: m.MessageId,
            StatusCode: 101,
            StatusDescription: text,
            TransactionId: `tx ${PASSWORD}`,
            ExtraInfo: { echo: text, [PASSWORD]: 'key' },
          })),
        });
      } else if (mode === 'http400') {
        res.writeHead(400, { 'content-type': 'text/plain' });
        res.end(text);
      } else if (mode === 'malformed') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(`{"ProcessResult": tru ${text}`);
      } else if (mode === 'http500') {
        res.writeHead(500, { 'content-type': 'text/html' });
        res.end(`<html><body><pre>${xml(text)}</pre></body></html>`);
      } else {
        json(200, { ProcessResult: false, ProcessResultDescription: `bad request ${text}` });
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

let dir: Awaited<ReturnType<typeof tempDir>>;
let root: string;
const servers: Server[] = [];
beforeAll(async () => {
  dir = await tempDir();
  root = await realpath(dir.path);
});
afterAll(async () => {
  for (const server of servers) server.closeAllConnections();
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  await dir.remove();
});

async function gateway(modes: readonly Mode[]): Promise<string> {
  const { url, server } = await echoGateway(modes);
  servers.push(server);
  return url;
}

async function filesUnder(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
}

/** Asserts no form of the password in stdout, stderr or any byte of any file under `folder`. */
async function expectNoPassword(results: CliResult[], folder: string): Promise<void> {
  for (const form of FORBIDDEN) {
    for (const result of results) {
      expect(result.stdout, `stdout holds ${form}`).not.toContain(form);
      expect(result.stderr, `stderr holds ${form}`).not.toContain(form);
    }
    for (const file of await filesUnder(folder)) {
      expect((await readFile(file)).includes(form), `${file} holds ${form}`).toBe(false);
    }
  }
}

const PATHS: Mode[] = ['description', 'http400', 'malformed', 'http500', 'refusal'];

describe('a gateway echoing the request body through every failure path', () => {
  it('send, with each report format, with and without --json: no form of the password anywhere', async () => {
    const variants = [
      ['report.csv', '--verbose'],
      ['report.json', '--json'],
      ['report.ndjson', '--verbose'],
      ['report.xml', '--json'],
    ] as const;
    await Promise.all(
      variants.map(async ([report, flag]) => {
        const work = join(root, `send-${report}`);
        await mkdir(work);
        await writeCampaignCsv(join(work, 'campaign.csv'), 6);
        const endpoint = await gateway(PATHS);
        const args = ['campaign.csv', '--endpoint', endpoint, '--report', report, flag];
        const result = await runInProcess([...args, '--batch-size', '1', '--concurrency', '1'], {
          cwd: work,
          env: { ...CREDENTIALS, SMS_SEND_STATE_DIR: join(work, 'state') },
        });
        // ProcessResult false naming the password is a credentials refusal: the run stops (exit 3)
        // after every other path has run once.
        expect(result.code, result.stderr).toBe(3);
        const files = await filesUnder(work);
        expect(files).toContain(join(work, report));
        // The campaign's journal and manifest, in its state folder, are searched too.
        expect(files.filter((f) => f.startsWith(join(work, 'state')))).toEqual(
          expect.arrayContaining([
            expect.stringMatching(/journal\.ndjson$/),
            expect.stringMatching(/manifest\.json$/),
          ]),
        );
        const written = await readFile(join(work, report), 'utf8');
        // Each path reached the report, masked.
        expect(written).toContain('***');
        expect(written).toMatch(/HTTP 400/);
        expect(written).toMatch(/malformed response body/);
        expect(written).toMatch(/HTTP 500/);
        expect(written).toMatch(/gateway refused the request/);
        await expectNoPassword([result], work);
      }),
    );
  });

  it('check, plain and --json, through each failure path: no form of the password anywhere', async () => {
    const work = join(root, 'check');
    await mkdir(work);
    const results = await Promise.all(
      (['http400', 'malformed', 'refusal'] as const).flatMap((mode) =>
        [[], ['--json']].map(async (extra) =>
          runInProcess(['check', '--endpoint', await gateway([mode]), ...extra], {
            cwd: work,
            env: CREDENTIALS,
          }),
        ),
      ),
    );
    expect(results.map((r) => r.code)).toEqual([3, 3, 3, 3, 3, 3]);
    expect(results.some((r) => r.stdout.includes('***') || r.stderr.includes('***'))).toBe(true);
    await expectNoPassword(results, work);
  });
});
