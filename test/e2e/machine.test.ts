// What machines read from the binary: check's exit codes, --json documents, plain non-TTY output,
// JUnit XML, formula-safe CSV cells, and the refusal to overwrite a report (send twice).
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createTcpServer, type AddressInfo } from 'node:net';
import { access, mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type FaultOptions, type Simulator } from '../../src/simulator/index.js';
import { runCli, type CliOptions, type CliResult } from '../helpers/cli.js';
import { runInProcess } from '../helpers/in-process.js';
import { mobile, parseCsv, writeCampaignCsv } from '../helpers/files.js';
import { stateJournal } from '../helpers/reliability.js';
import { suiteFolder } from '../helpers/suite.js';

/** Asymmetric matchers typed as unknown, so they sit in object literals without `any`. */
const containing = (object: object): unknown => expect.objectContaining(object) as unknown;
const including = (text: string): unknown => expect.stringContaining(text) as unknown;
const anyString: unknown = expect.any(String);

const USER = 'e2e-user';
const PASSWORD = 'e2e-pass-51';
const CREDENTIALS = { SMS_SEND_USERNAME: USER, SMS_SEND_PASSWORD: PASSWORD };
const SPINNER_FRAMES = /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/;

const suite = suiteFolder();
let files = 0;

async function simulator(faults: FaultOptions = {}, seed = 1): Promise<Simulator> {
  const sim = await suite.simulator({
    credentials: { username: USER, password: PASSWORD },
    faults,
    seed,
  });
  return sim;
}

/** A fresh path in the suite's temp folder, so runs never share a report. */
function fresh(name: string): string {
  return join(suite.path, `${++files}-${name}`);
}

/**
 * Several tests send the same content: each gives its runs a campaign state folder of its own
 * (`state`), instead of the per-test one in process.env. The runs are in-process (one at a time,
 * so the tests here are not concurrent); the terminal-output ones spawn the binary.
 */
function ownState(): {
  cli: (args: string[], options?: CliOptions) => Promise<CliResult>;
  state: string;
} {
  const state = fresh('state');
  const cli = (args: string[], options: CliOptions = {}) =>
    runInProcess(args, { ...options, env: { SMS_SEND_STATE_DIR: state, ...options.env } });
  return { cli, state };
}

async function campaign(count: number): Promise<string> {
  const file = fresh('campaign.csv');
  await writeCampaignCsv(file, count);
  return file;
}

/** stdout must be exactly one JSON document (one line); returns it parsed. */
function oneDocument(result: CliResult): Record<string, unknown> {
  const lines = result.stdout.split('\n').filter((line) => line.trim() !== '');
  expect(lines, `stdout must hold one JSON document, got:\n${result.stdout}`).toHaveLength(1);
  expect(result.stdout.endsWith('\n')).toBe(true);
  return JSON.parse(lines[0]!) as Record<string, unknown>;
}

/** A loopback port nothing listens on: bound, noted, closed. */
async function closedPort(): Promise<number> {
  const server = createTcpServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve, reject) => server.close((e) => (e ? reject(e) : resolve())));
  return port;
}

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

describe('sms-send check', () => {
  it('passes against a gateway that accepts the credentials: exit 0, endpoint, HTTP 200, ProcessResult true; sends nothing', async () => {
    const { cli } = ownState();
    const sim = await simulator();
    const result = await cli(['check', '--endpoint', sim.url], {
      cwd: suite.path,
      env: CREDENTIALS,
    });
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    expect(result.stdout).toContain('gateway check passed');
    expect(result.stdout).toMatch(new RegExp(`endpoint\\s+${sim.url.replace(/\./g, '\\.')}\\n`));
    expect(result.stdout).toMatch(/HTTP status\s+200\n/);
    expect(result.stdout).toMatch(/ProcessResult\s+true\n/);
    expect(sim.ledger).toHaveLength(0);
    expect(sim.requests.map((r) => [r.messageCount, r.outcome])).toEqual([[0, 'ok']]);
  });

  it('exits 3 when the gateway refuses the credentials', async () => {
    const { cli } = ownState();
    const sim = await simulator();
    const result = await cli(['check', '--endpoint', sim.url], {
      cwd: suite.path,
      env: { SMS_SEND_USERNAME: USER, SMS_SEND_PASSWORD: 'not-the-password' },
    });
    expect(result.code).toBe(3);
    expect(result.stdout).toContain('gateway check failed');
    expect(result.stdout).toMatch(/ProcessResult\s+false \(Authentication failed/);
    expect(result.stderr).toContain('sms-send: check failed: gateway refused the request');
    expect(sim.requests.map((r) => r.outcome)).toEqual(['auth']);
  });

  it('exits 3 when nothing listens at the endpoint', async () => {
    const { cli } = ownState();
    const port = await closedPort();
    const result = await cli(['check', '--endpoint', `http://127.0.0.1:${port}`], {
      cwd: suite.path,
      env: CREDENTIALS,
    });
    expect(result.code).toBe(3);
    expect(result.stdout).toContain('gateway check failed');
    expect(result.stderr).toContain('no answer: connection refused');
  });

  it('--json prints one document {check:{ok:true,…}} when the check passes', async () => {
    const { cli } = ownState();
    const sim = await simulator();
    const result = await cli(['check', '--endpoint', sim.url, '--json'], {
      cwd: suite.path,
      env: CREDENTIALS,
    });
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    const doc = oneDocument(result);
    expect(Object.keys(doc)).toEqual(['check']);
    expect(doc.check).toMatchObject({
      ok: true,
      endpoint: sim.url,
      httpStatus: 200,
      processResult: true,
    });
    expect(typeof (doc.check as { roundTripMs: unknown }).roundTripMs).toBe('number');
  });

  it('--json prints one document {check:{ok:false,…}} when the check fails (bad credentials, unreachable)', async () => {
    const { cli } = ownState();
    const sim = await simulator();
    const port = await closedPort();
    const [refused, unreachable] = await Promise.all([
      cli(['check', '--endpoint', sim.url, '--json'], {
        cwd: suite.path,
        env: { SMS_SEND_USERNAME: USER, SMS_SEND_PASSWORD: 'not-the-password' },
      }),
      cli(['check', '--endpoint', `http://127.0.0.1:${port}`, '--json'], {
        cwd: suite.path,
        env: CREDENTIALS,
      }),
    ]);
    expect(refused.code).toBe(3);
    expect(oneDocument(refused)).toEqual({
      check: containing({ ok: false, httpStatus: 200, processResult: false }),
    });
    expect(unreachable.code).toBe(3);
    expect(oneDocument(unreachable)).toEqual({
      check: containing({
        ok: false,
        reason: including('connection refused'),
      }),
    });
  });

  it('--to sends exactly one message and reports its TransactionId', async () => {
    const { cli } = ownState();
    const sim = await simulator();
    const [human, json] = await Promise.all([
      cli(['check', '--endpoint', sim.url, '--to', '4741234567'], {
        cwd: suite.path,
        env: CREDENTIALS,
      }),
      cli(['check', '--endpoint', sim.url, '--to', '4741234568', '--json'], {
        cwd: suite.path,
        env: CREDENTIALS,
      }),
    ]);
    expect([human.code, json.code]).toEqual([0, 0]);
    // One message per check, each to its own number.
    expect(sim.ledger.map((e) => e.destination).sort()).toEqual(['4741234567', '4741234568']);
    const entry = (to: string) => sim.ledger.find((e) => e.destination === to)!;
    expect(human.stdout).toMatch(/test message\s+to 4741234567: StatusCode 0/);
    expect(human.stdout).toMatch(
      new RegExp(`TransactionId\\s+${entry('4741234567').transactionId}\\n`),
    );
    expect(oneDocument(json)).toEqual({
      check: containing({
        ok: true,
        message: containing({
          to: '4741234568',
          messageId: entry('4741234568').messageId,
          statusCode: 0,
          transactionId: entry('4741234568').transactionId,
        }),
      }),
    });
  });

  it('exits 2 with no endpoint, naming --endpoint and --simulate; --json gives one error document', async () => {
    const { cli } = ownState();
    const [result, json] = await Promise.all([
      cli(['check'], { cwd: suite.path, env: CREDENTIALS }),
      cli(['check', '--json'], { cwd: suite.path, env: CREDENTIALS }),
    ]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('--endpoint');
    expect(result.stderr).toContain('--simulate');
    expect(json.code).toBe(2);
    expect(oneDocument(json)).toEqual({
      error: { code: 'no-endpoint', message: including('--endpoint'), exitCode: 2 },
    });
  });
});

describe('sms-send send --json', () => {
  it('prints only the summary document and exits 0 when all are accepted (no progress lines either)', async () => {
    const { cli } = ownState();
    const sim = await simulator({ latencyMs: 150 });
    const input = await campaign(8);
    const report = fresh('json.csv');
    const args = [input, '--endpoint', sim.url, '--report', report, '--json'];
    args.push('--batch-size', '1', '--concurrency', '1', '--progress-interval', '1');
    const result = await cli(args, { cwd: suite.path, env: CREDENTIALS });
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    const doc = oneDocument(result);
    expect(Object.keys(doc)).toEqual(['summary']);
    const summary = doc.summary as Record<string, unknown>;
    expect(summary).toMatchObject({
      total: 8,
      byOutcome: { accepted: 8, rejected: 0, invalid: 0, failed: 0, unknown: 0, skipped: 0 },
      byStatusCode: { '0': { count: 8, description: 'Accepted' } },
      report,
      simulated: false,
      exitCode: 0,
    });
    expect(Object.keys(summary)).toEqual(
      expect.arrayContaining(['startedAt', 'durationMs', 'messagesPerSecond']),
    );
    expect(sim.ledger).toHaveLength(8);
  });

  it('reports rejections with exitCode 1 in the document and as the process exit code', async () => {
    const { cli } = ownState();
    const sim = await simulator({ rejectMessage: 1 });
    const input = await campaign(5);
    const result = await cli([input, '--endpoint', sim.url, '--report', fresh('r.csv'), '--json'], {
      cwd: suite.path,
      env: CREDENTIALS,
    });
    expect(result.code).toBe(1);
    expect(oneDocument(result)).toEqual({
      summary: containing({
        total: 5,
        byOutcome: containing({ accepted: 0, rejected: 5 }),
        byStatusCode: { '120': { count: 5, description: anyString } },
        exitCode: 1,
      }),
    });
    expect(sim.ledger).toHaveLength(0);
  });

  it('a missing input file: one error document with exitCode 2, nothing else on stdout', async () => {
    const { cli } = ownState();
    const sim = await simulator();
    const missing = join(suite.path, 'no-such-campaign.csv');
    const result = await cli([missing, '--endpoint', sim.url, '--json'], {
      cwd: suite.path,
      env: CREDENTIALS,
    });
    expect(result.code).toBe(2);
    expect(oneDocument(result)).toEqual({
      error: {
        code: 'input',
        message: including(missing),
        exitCode: 2,
        problems: [{ file: missing, reason: 'the input file does not exist' }],
      },
    });
    expect(sim.requests).toHaveLength(0);
  });

  it('invalid records: the error document lists each problem with file, line, row and field', async () => {
    const { cli } = ownState();
    const input = fresh('bad.csv');
    await writeFile(input, `to,text\n${mobile(1)},fine\n12,too short\n${mobile(3)},\n`);
    const result = await cli([input, '--simulate', '--json'], { cwd: suite.path });
    expect(result.code).toBe(2);
    expect(oneDocument(result)).toEqual({
      error: {
        code: 'invalid-input',
        message: including('2 records of 3 cannot be sent'),
        exitCode: 2,
        problems: [
          { file: input, line: 3, row: 2, field: 'to', reason: anyString },
          { file: input, line: 4, row: 3, field: 'text', reason: anyString },
        ],
      },
    });
  });

  it('over --max-cost: exit 2 and one error document, in a send and in its dry run; nothing sent', async () => {
    const { cli } = ownState();
    const input = await campaign(3);
    const report = fresh('cost.csv');
    const args = [input, '--simulate', '--report', report, '--json'];
    const limits = ['--price-per-segment', '0.5', '--currency', 'NOK', '--max-cost', '1'];
    const error = {
      code: 'over-max-cost',
      message:
        'the estimated cost 1.50 NOK (3 segments of 3 messages) is more than --max-cost 1.00 NOK. Nothing was sent.',
      exitCode: 2,
    };
    const sent = await cli([...args, ...limits], { cwd: suite.path });
    expect(sent.code).toBe(2);
    expect(oneDocument(sent)).toEqual({ error });
    await expect(access(report)).rejects.toThrow();
    const dry = await cli([...args, ...limits, '--dry-run'], { cwd: suite.path });
    expect(dry.code).toBe(2);
    expect(oneDocument(dry)).toEqual({
      plan: containing({
        cost: {
          currency: 'NOK',
          total: 1.5,
          byCallingCode: [
            { callingCode: '47', messages: 3, segments: 3, pricePerSegment: 0.5, cost: 1.5 },
          ],
          maxCost: 1,
        },
      }),
      error,
    });
  });

  it('no endpoint: one error document with exitCode 2', async () => {
    const { cli } = ownState();
    const input = await campaign(2);
    const result = await cli([input, '--report', fresh('r.csv'), '--json'], {
      cwd: suite.path,
      env: CREDENTIALS,
    });
    expect(result.code).toBe(2);
    expect(oneDocument(result)).toEqual({
      error: { code: 'no-endpoint', message: including('--simulate'), exitCode: 2 },
    });
  });

  it.each<[string, string[], object]>([
    ['an unknown option', ['--bogus'], {}],
    [
      'a bad option value',
      ['--batch-size', '0'],
      {
        problems: [{ file: 'the settings', field: '--batch-size 0', reason: 'must be at least 1' }],
      },
    ],
  ])(
    'a usage error from the command line (%s): exit 2 and one error document',
    async (_, extra, more) => {
      const { cli } = ownState();
      const input = await campaign(2);
      const result = await cli([input, '--simulate', '--json', ...extra], { cwd: suite.path });
      expect(result.code).toBe(2);
      expect(oneDocument(result)).toEqual({
        error: { code: 'usage', message: anyString, exitCode: 2, ...more },
      });
    },
  );

  it('credentials refused mid-run (exit 3): stdout is still one JSON document', async () => {
    const { cli } = ownState();
    const sim = await simulator();
    const input = await campaign(3);
    const result = await cli([input, '--endpoint', sim.url, '--report', fresh('r.csv'), '--json'], {
      cwd: suite.path,
      env: { SMS_SEND_USERNAME: USER, SMS_SEND_PASSWORD: 'not-the-password' },
    });
    expect(result.code).toBe(3);
    const doc = oneDocument(result);
    const exitCode =
      (doc.summary as { exitCode?: number } | undefined)?.exitCode ??
      (doc.error as { exitCode?: number } | undefined)?.exitCode;
    expect(exitCode).toBe(3);
    expect(doc).toMatchObject({
      summary: {
        resumeCommand: expect.stringMatching(/^npx sms-send .* --json --resume$/) as unknown,
      },
    });
  });
});

describe('output when stdout and stderr are not a terminal', () => {
  /** Sends 10 records one per request at 250 ms each: a run of ~2.5 s with a line per second. */
  async function slowRun(env: Record<string, string | undefined>): Promise<CliResult> {
    const sim = await simulator({ latencyMs: 250 });
    const input = await campaign(10);
    const args = [input, '--endpoint', sim.url, '--report', fresh('slow.csv')];
    args.push('--batch-size', '1', '--concurrency', '1', '--progress-interval', '1');
    // Two of these run at once over the same content: each keeps its own campaign state.
    const stateDir = fresh('slow-state');
    return runCli(args, {
      cwd: suite.path,
      env: { ...CREDENTIALS, SMS_SEND_STATE_DIR: stateDir, ...env },
    });
  }

  function expectPlain(result: CliResult): void {
    for (const text of [result.stdout, result.stderr]) {
      expect(text.includes('\u001b')).toBe(false);
      expect(text.includes('\r')).toBe(false);
      expect(text).not.toMatch(SPINNER_FRAMES);
    }
  }

  it('prints plain progress lines on stderr and no escape codes or spinner frames', async () => {
    const [pinned, unpinned] = await Promise.all([
      slowRun({}),
      // Nothing but the missing terminal keeps colour away here.
      slowRun({
        NO_COLOR: undefined,
        CI: undefined,
        FORCE_COLOR: undefined,
        TERM: 'xterm-256color',
        COLORTERM: 'truecolor',
      }),
    ]);
    for (const result of [pinned, unpinned]) {
      expect(result.code).toBe(0);
      expectPlain(result);
      const lines = result.stderr.split('\n').filter((line) => line !== '');
      // On a loaded machine the validation pass can outlast the interval and report too.
      const sending = lines.filter((line) => !/^validating: \d+ records? read {2}\S/.test(line));
      expect(sending.length).toBeGreaterThanOrEqual(1);
      for (const line of sending) {
        expect(line).toMatch(/^sending \d+ \/ 10 \(\d+%\) {2}accepted \d+ {2}\S/);
      }
      expect(result.stdout).toContain('10 of 10 messages accepted');
    }
  });

  it('warnings and the summary of a troubled run are plain too', async () => {
    const { cli } = ownState();
    const sim = await simulator({ errorAfterProcessing: 1 });
    const input = await campaign(3);
    const result = await cli([input, '--endpoint', sim.url, '--report', fresh('u.csv')], {
      cwd: suite.path,
      env: { ...CREDENTIALS, NO_COLOR: undefined, CI: undefined, TERM: 'xterm-256color' },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('3 records are unknown');
    expectPlain(result);
  });

  it('--quiet prints nothing at all for a successful run', async () => {
    const { cli } = ownState();
    // 8 requests of 150 ms: long enough for a progress line, had --quiet not silenced it.
    const sim = await simulator({ latencyMs: 150 });
    const input = await campaign(8);
    const report = fresh('quiet.csv');
    const args = [input, '--endpoint', sim.url, '--report', report, '--quiet'];
    args.push('--batch-size', '1', '--concurrency', '1', '--progress-interval', '1');
    const result = await cli(args, { cwd: suite.path, env: CREDENTIALS });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe('');
    expect(parseCsv(await readFile(report, 'utf8'))).toHaveLength(8);
  });

  it('--quiet still says, on one line on stderr, how a failing run ended (exit 1)', async () => {
    const { cli } = ownState();
    const sim = await simulator({ errorAfterProcessing: 1 });
    const input = await campaign(3);
    const report = fresh('quiet-unknown.csv');
    const args = [input, '--endpoint', sim.url, '--report', report, '--quiet'];
    const result = await cli(args, { cwd: suite.path, env: CREDENTIALS });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(`sms-send: 3 unknown, 0 accepted of 3; report ${report}\n`);
  });

  it('--quiet on a run the gateway stopped (exit 3): one line with the counts and the resume command', async () => {
    const { cli } = ownState();
    const sim = await simulator({ authStatus: 401 });
    const input = await campaign(3);
    const report = fresh('quiet-refused.csv');
    const args = [input, '--endpoint', sim.url, '--report', report, '--quiet'];
    const env = { ...CREDENTIALS, SMS_SEND_PASSWORD: 'not-the-password' };
    const result = await cli(args, { cwd: suite.path, env });
    expect(result.code).toBe(3);
    expect(result.stdout).toBe('');
    const lines = result.stderr.split('\n').filter((line) => line !== '');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^sms-send: the gateway refused the credentials: .*; 3 failed, 0 accepted of 3; report .*; put the right credentials in place first \(`sms-send config` shows where each came from\), then finish the campaign with: npx sms-send .* --resume$/,
    );
  });
});

interface XmlElement {
  name: string;
  attrs: Record<string, string>;
  parent?: string;
}

const ENTITY = /&(?!(?:amp|lt|gt|quot|apos|#\d+|#x[0-9a-fA-F]+);)/;

/** A strict little XML reader: throws unless every tag nests and closes and every & is an entity. */
function readXml(xml: string): XmlElement[] {
  const prolog = '<?xml version="1.0" encoding="UTF-8"?>\n';
  expect(xml.startsWith(prolog)).toBe(true);
  const token = /<(\/?)([A-Za-z_][\w.-]*)((?:\s+[A-Za-z_][\w.:-]*="[^"<]*")*)\s*(\/?)>|([^<]+)/y;
  const elements: XmlElement[] = [];
  const stack: string[] = [];
  let roots = 0;
  token.lastIndex = prolog.length;
  while (token.lastIndex < xml.length) {
    const at = token.lastIndex;
    const m = token.exec(xml);
    if (!m) throw new Error(`malformed XML at offset ${at}: ${xml.slice(at, at + 60)}`);
    const [, closing, name, attrText, selfClosing, text] = m;
    if (text !== undefined) {
      if (ENTITY.test(text)) throw new Error(`bare & in text at offset ${at}`);
      if (stack.length === 0 && text.trim() !== '') throw new Error('text outside the root');
      continue;
    }
    if (closing) {
      const open = stack.pop();
      if (open !== name) throw new Error(`</${name}> closes <${open}> at offset ${at}`);
      continue;
    }
    if (stack.length === 0) roots++;
    const attrs: Record<string, string> = {};
    for (const a of attrText!.matchAll(/([A-Za-z_][\w.:-]*)="([^"]*)"/g)) {
      if (ENTITY.test(a[2]!)) throw new Error(`bare & in attribute ${a[1]} at offset ${at}`);
      if (a[1]! in attrs) throw new Error(`duplicate attribute ${a[1]} at offset ${at}`);
      attrs[a[1]!] = a[2]!;
    }
    elements.push({ name: name!, attrs, parent: stack.at(-1) });
    if (!selfClosing) stack.push(name!);
  }
  if (stack.length > 0) throw new Error(`unclosed: ${stack.join(' > ')}`);
  if (roots !== 1) throw new Error(`${roots} root elements`);
  return elements;
}

describe('--report x.xml (JUnit)', () => {
  it('has one testcase per record and one failure per record not accepted, counts on <testsuite>', async () => {
    const { cli } = ownState();
    const sim = await simulator({ rejectMessage: 0.4 }, 7);
    const input = fresh('junit.csv');
    const valid = Array.from({ length: 12 }, (_, i) => `${mobile(i)},Hello ${i}`);
    const invalid = [
      '"<b>&""x""</b>",Hello tags',
      '"=HYPERLINK(""http://e"")",Hello link',
      `${mobile(99)},`,
    ];
    await writeFile(input, ['to,text', ...valid, ...invalid].join('\n') + '\n');
    const report = fresh('results.xml');
    const result = await cli(
      [input, '--endpoint', sim.url, '--report', report, '--skip-invalid', '--json'],
      { cwd: suite.path, env: CREDENTIALS },
    );
    expect(result.code).toBe(1);
    const accepted = sim.ledger.length;
    // The seed makes some rejected and some accepted; the test needs both kinds.
    expect(accepted).toBeGreaterThan(0);
    expect(accepted).toBeLessThan(12);
    const summary = oneDocument(result).summary as { byOutcome: Record<string, number> };
    expect(summary.byOutcome).toMatchObject({ accepted, rejected: 12 - accepted, invalid: 3 });

    const xml = await readFile(report, 'utf8');
    const elements = readXml(xml);
    const named = (name: string) => elements.filter((e) => e.name === name);
    expect(named('testsuites')).toHaveLength(1);
    const suites = named('testsuite');
    expect(suites).toHaveLength(1);
    expect(suites[0]!.parent).toBe('testsuites');
    const cases = named('testcase');
    const failures = named('failure');
    expect(cases).toHaveLength(15);
    expect(cases.every((c) => c.parent === 'testsuite')).toBe(true);
    expect(failures).toHaveLength(15 - accepted);
    expect(failures.every((f) => f.parent === 'testcase')).toBe(true);
    expect(failures.filter((f) => f.attrs.type === 'invalid')).toHaveLength(3);
    expect(failures.filter((f) => f.attrs.type === 'rejected')).toHaveLength(12 - accepted);
    expect(named('skipped')).toHaveLength(0);
    expect(suites[0]!.attrs).toMatchObject({
      tests: '15',
      failures: String(15 - accepted),
      errors: '0',
      skipped: '0',
    });
    expect(named('testsuites')[0]!.attrs).toMatchObject({
      tests: '15',
      failures: String(15 - accepted),
    });
    // Each accepted record's TransactionId is in its testcase, and so are its segments.
    for (const entry of sim.ledger) {
      expect(xml).toMatch(
        new RegExp(`TransactionId ${entry.transactionId}&#10;segments \\d+ \\((GSM-7|UCS-2)\\)<`),
      );
    }

    // The reason of the record with markup in it is escaped, never raw.
    expect(xml).toContain('&lt;b&gt;&amp;&quot;x&quot;&lt;/b&gt;');
    expect(xml).not.toContain('<b>');
    expect(xml).toContain('StatusCode 120: Rejected by simulated operator fault');
    expect(await exists(`${report}.cases`)).toBe(false);
  });
});

interface Gateway {
  url: string;
  stop(): Promise<void>;
}

/** A minimal gateway whose per-message answers a test scripts, e.g. text that looks like a formula. */
async function scriptedGateway(
  answer: (message: Record<string, unknown>, index: number) => Record<string, unknown>,
): Promise<Gateway> {
  const server: Server = createHttpServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      const request = JSON.parse(body) as { Messages: Record<string, unknown>[] };
      const Messages = request.Messages.map((m, i) => ({
        MessageId: m.MessageId,
        ...answer(m, i),
      }));
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ ProcessResult: true, Messages }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('CSV report cells that a spreadsheet would run as formulas', () => {
  it('get a leading apostrophe: recipient, MessageId and the error column', async () => {
    const { cli } = ownState();
    const sim = await simulator();
    const work = fresh('formula');
    await mkdir(work);
    // The file name starts with "=", so the error column (file:line: field: reason) does too.
    const lines = [
      'to,text,MessageId',
      `${mobile(1)},one,"=HYPERLINK(""http://e.x"",""y"")"`,
      `${mobile(2)},two,@SUM(A1)`,
      `${mobile(3)},three,+1+cmd`,
      `${mobile(4)},four,-2-cmd`,
      '"=HYPERLINK(""http://evil.example"")",five,id-5',
      '@cmd,six,id-6',
    ];
    await writeFile(join(work, '=campaign.csv'), lines.join('\n') + '\n');
    const report = join(work, 'report.csv');
    const result = await cli(
      ['=campaign.csv', '--endpoint', sim.url, '--report', report, '--skip-invalid'],
      { cwd: work, env: CREDENTIALS },
    );
    expect(result.code).toBe(1);
    expect(sim.ledger).toHaveLength(4);
    const rows = new Map(parseCsv(await readFile(report, 'utf8')).map((r) => [r.row, r]));
    expect(rows.get('1')!.messageId).toBe(`'=HYPERLINK("http://e.x","y")`);
    expect(rows.get('2')!.messageId).toBe("'@SUM(A1)");
    expect(rows.get('3')!.messageId).toBe("'+1+cmd");
    expect(rows.get('4')!.messageId).toBe("'-2-cmd");
    expect(rows.get('5')).toMatchObject({
      outcome: 'invalid',
      to: `'=HYPERLINK("http://evil.example")`,
    });
    expect(rows.get('5')!.error).toMatch(/^'=campaign\.csv:6: to: /);
    expect(rows.get('6')).toMatchObject({ outcome: 'invalid', to: "'@cmd" });
    expect(rows.get('6')!.error).toMatch(/^'=campaign\.csv:7: to: /);
    // The gateway saw the MessageIds as they were: the escape is the report's alone.
    expect(sim.ledger.map((e) => e.messageId).sort()).toEqual(
      ['=HYPERLINK("http://e.x","y")', '@SUM(A1)', '+1+cmd', '-2-cmd'].sort(),
    );
  });

  it('get a leading apostrophe when the gateway answers with them (description, TransactionId, ExtraInfo)', async () => {
    const { cli } = ownState();
    const answers = [
      {
        StatusCode: 0,
        StatusDescription: '=cmd|" /C calc"!A0',
        TransactionId: '@tx-1',
        ExtraInfo: { '=k': 'v' },
      },
      { StatusCode: 5, StatusDescription: '+SUM(1,2)', TransactionId: '-tx-2' },
      { StatusCode: 6, StatusDescription: '-2+3', TransactionId: 'tx-3' },
      {
        StatusCode: 7,
        StatusDescription: '@HYPERLINK("http://evil.example")',
        TransactionId: 'tx-4',
      },
    ];
    const gateway = await scriptedGateway((_, i) => answers[i]!);
    try {
      const input = await campaign(4);
      const report = fresh('gw-formula.csv');
      const result = await cli([input, '--endpoint', gateway.url, '--report', report], {
        cwd: suite.path,
        env: CREDENTIALS,
      });
      expect(result.code).toBe(1);
      const rows = new Map(parseCsv(await readFile(report, 'utf8')).map((r) => [r.row, r]));
      expect(rows.get('1')).toMatchObject({
        outcome: 'accepted',
        statusDescription: `'=cmd|" /C calc"!A0`,
        transactionId: "'@tx-1",
        extraInfo: "'=k=v",
      });
      expect(rows.get('2')).toMatchObject({
        outcome: 'rejected',
        statusDescription: "'+SUM(1,2)",
        transactionId: "'-tx-2",
      });
      expect(rows.get('3')!.statusDescription).toBe("'-2+3");
      expect(rows.get('4')!.statusDescription).toBe(`'@HYPERLINK("http://evil.example")`);
    } finally {
      await gateway.stop();
    }
  });
});

describe('an existing report is never overwritten', () => {
  it('a second run exits 2 (already sent), sends nothing and leaves report and state byte-identical', async () => {
    const { cli, state } = ownState();
    const sim = await simulator();
    const input = await campaign(5);
    const report = fresh('once.csv');
    const args = [input, '--endpoint', sim.url, '--report', report];
    const first = await cli(args, { cwd: suite.path, env: CREDENTIALS });
    expect(first.code).toBe(0);
    expect(sim.ledger).toHaveLength(5);
    const requests = sim.requests.length;
    const before = await readFile(report);
    const journal = await readFile(stateJournal(state));

    const second = await cli(args, { cwd: suite.path, env: CREDENTIALS });
    expect(second.code).toBe(2);
    expect(second.stdout).toBe('');
    expect(second.stderr).toMatch(
      /campaign \w{16} was already sent on \d{4}-\d\d-\d\d: 5 accepted/,
    );
    expect(second.stderr).toContain(`report ${report}`);
    expect(second.stderr).toContain('--force');
    expect(sim.ledger).toHaveLength(5);
    expect(sim.requests).toHaveLength(requests);
    expect((await readFile(report)).equals(before)).toBe(true);
    expect((await readFile(stateJournal(state))).equals(journal)).toBe(true);
    expect(await exists(`${report}.lock`)).toBe(false);
    expect(await exists(join(dirname(stateJournal(state)), 'spool'))).toBe(false);

    const json = await cli([...args, '--json'], { cwd: suite.path, env: CREDENTIALS });
    expect(json.code).toBe(2);
    expect(oneDocument(json)).toEqual({
      error: { code: 'already-sent', message: including(report), exitCode: 2 },
    });
    expect(sim.requests).toHaveLength(requests);
    expect((await readFile(report)).equals(before)).toBe(true);
  });

  it('another campaign never overwrites an existing report without --force', async () => {
    const { cli } = ownState();
    const sim = await simulator();
    const input = await campaign(5);
    const report = fresh('shared.csv');
    const first = await cli([input, '--endpoint', sim.url, '--report', report], {
      cwd: suite.path,
      env: CREDENTIALS,
    });
    expect(first.code).toBe(0);
    const before = await readFile(report);
    const other = join(suite.path, 'other.csv');
    await writeFile(other, `to,text\n${mobile(7)},another campaign\n`);
    const second = await cli([other, '--endpoint', sim.url, '--report', report, '--json'], {
      cwd: suite.path,
      env: CREDENTIALS,
    });
    expect(second.code).toBe(2);
    expect(oneDocument(second)).toEqual({
      error: { code: 'report-exists', message: including(report), exitCode: 2 },
    });
    expect(sim.ledger).toHaveLength(5);
    expect((await readFile(report)).equals(before)).toBe(true);
  });

  it("--report 'reports/{date}-{name}.csv' writes today's report; a second run is refused whatever the report is called", async () => {
    const { cli } = ownState();
    const sim = await simulator();
    const work = fresh('cron');
    await mkdir(join(work, 'campaigns'), { recursive: true });
    await mkdir(join(work, 'reports'));
    await writeCampaignCsv(join(work, 'campaigns', 'tonight.csv'), 3);
    const args = ['campaigns/tonight.csv', '--endpoint', sim.url, '--yes', '--quiet'];
    const today = () => {
      const now = new Date();
      const pad = (n: number) => String(n).padStart(2, '0');
      return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
    };
    const dayBefore = today();
    const first = await cli([...args, '--report', 'reports/{date}-{name}.csv'], {
      cwd: work,
      env: CREDENTIALS,
    });
    const dayAfter = today();
    expect(first.code).toBe(0);
    expect(first.stdout).toBe('');
    const written = (await readdir(join(work, 'reports'))).filter((f) => f.endsWith('.csv'));
    expect(written).toHaveLength(1);
    expect([`${dayBefore}-tonight.csv`, `${dayAfter}-tonight.csv`]).toContain(written[0]);
    const report = join(work, 'reports', written[0]!);
    const before = await readFile(report);
    expect(parseCsv(before.toString())).toHaveLength(3);

    // Same day or the next, {date} or {time}: the content was sent, so nothing goes out again.
    for (const name of ['reports/{date}-{name}.csv', 'reports/{time}-{name}.csv']) {
      const again = await cli([...args, '--report', name], { cwd: work, env: CREDENTIALS });
      expect(again.code).toBe(2);
      expect(again.stderr).toContain('already sent');
      expect(again.stderr).toContain(report);
    }
    expect(sim.ledger).toHaveLength(3);
    expect((await readFile(report)).equals(before)).toBe(true);
    expect(await readdir(join(work, 'reports'))).toEqual(written);
  });

  it('a report folder that does not exist is a usage error (exit 2), not a crash', async () => {
    const { cli } = ownState();
    const sim = await simulator();
    const work = fresh('no-reports-dir');
    await mkdir(work);
    await writeCampaignCsv(join(work, 'tonight.csv'), 2);
    const result = await cli(
      ['tonight.csv', '--endpoint', sim.url, '--report', 'missing/{date}-{name}.csv'],
      { cwd: work, env: CREDENTIALS },
    );
    expect(result.stderr).not.toContain('unexpected error');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('missing/');
    expect(sim.requests).toHaveLength(0);
  });
});
