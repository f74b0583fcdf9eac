// A password in a proxy URL never appears in what sms-send prints: the resume and retry commands,
// the refusals' next steps, the --json documents (cron mail and CI logs keep them all). The
// commands show it as *** and say how to run them all the same.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Simulator } from '../../src/simulator/index.js';
import type { CliResult } from '../helpers/cli.js';
import { writeCampaignCsv } from '../helpers/files.js';
import { runInProcess } from '../helpers/in-process.js';
import { startProxy, type TestProxy } from '../helpers/proxy.js';
import { suiteFolder } from '../helpers/suite.js';

const SECRET = 'planted-proxy-pw';
const suite = suiteFolder();
let proxy: TestProxy;
let sim: Simulator;
let proxyUrl: string;
const outputs: CliResult[] = [];

beforeAll(async () => {
  proxy = await startProxy({ user: 'pu', password: SECRET });
  proxyUrl = proxy.url;
  sim = await suite.simulator({ seed: 5, faults: { rejectMessage: 0.3, latencyMs: 10 } });
  await writeCampaignCsv(join(suite.path, 'p2.csv'), 60);
});
afterAll(() => proxy.stop());

async function run(args: string[]): Promise<CliResult> {
  const result = await runInProcess(args, {
    cwd: suite.path,
    env: {
      SMS_SEND_USERNAME: 'u',
      SMS_SEND_PASSWORD: 'p',
      SMS_SEND_STATE_DIR: join(suite.path, 'state'),
    },
  });
  outputs.push(result);
  return result;
}

/** Runs ARGS until the simulator accepted `after` messages, then sends the run Ctrl-C's signal. */
async function interruptWhen(args: string[], after: number): Promise<CliResult> {
  const before = new Set(process.listeners('SIGINT'));
  const running = run(args);
  while (sim.ledger.length < after) await new Promise((r) => setTimeout(r, 2));
  for (const listener of process.listeners('SIGINT')) {
    if (!before.has(listener)) listener('SIGINT');
  }
  return running;
}

describe('a proxy password in the command line', () => {
  const line = () => ['p2.csv', '--endpoint', sim.url, '--proxy', proxyUrl, '--batch-size', '5'];

  it('is masked in the resume command after Ctrl-C, and in --json', async () => {
    expect(proxyUrl).toContain(SECRET);
    const stopped = await interruptWhen([...line(), '--concurrency', '1'], 10);
    expect(stopped.code).toBe(130);
    expect(stopped.stderr).toMatch(/--proxy 'http:\/\/\*\*\*@127\.0\.0\.1:\d+' .*--resume/);
    expect(stopped.stderr).toContain('(a password in a URL is shown as ***: type it in again');
    // The command works once the password is put back.
    const resumed = await run([...line(), '--resume', '--json']);
    expect([0, 1]).toContain(resumed.code);
    expect(proxy.log.some((entry) => entry.startsWith('POST '))).toBe(true);
  });

  it('is masked in the retry command and in a refusal', async () => {
    const again = await run(line());
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('was already sent');
    const dir = join(suite.path, 'other');
    const other = await run([...line(), '--report', `${dir}.report.csv`, '--campaign', 'n2']);
    expect(other.code).toBe(1);
    expect(other.stderr).toMatch(/sms-send retry n2 .*--proxy 'http:\/\/\*\*\*@127\.0\.0\.1:\d+'/);
  });

  it('appears nowhere in what any of these runs printed', () => {
    expect(outputs.length).toBeGreaterThanOrEqual(4);
    for (const output of outputs) {
      expect(output.stdout).not.toContain(SECRET);
      expect(output.stderr).not.toContain(SECRET);
    }
  });
});
