// `sms-send simulate --ledger FILE`: the promise checked from outside, as the tests check it
// in-process. A campaign sent once, then sent again with --force: the file holds every accepted
// message, GET /stats and the stop line count the MessageIds accepted twice.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { collect, killLeft, startCli } from '../helpers/cli.js';
import { writeCampaignCsv } from '../helpers/files.js';
import { runInProcess } from '../helpers/in-process.js';
import { suiteFolder } from '../helpers/suite.js';

const suite = suiteFolder();
const RECORDS = 25;

describe('sms-send simulate --ledger', () => {
  it('writes every accepted message and counts those accepted twice', async () => {
    const ledger = join(suite.path, 'accepted.ndjson');
    const simulator = startCli(['simulate', '--port', '0', '--ledger', ledger]);
    try {
      let banner = '';
      simulator.stderr?.on('data', (chunk: Buffer) => (banner += chunk.toString()));
      const ended = collect(simulator);
      const url = await vi.waitFor(
        () => {
          const found = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(banner);
          if (!found) throw new Error(`no simulator URL yet: ${banner}`);
          return found[1]!;
        },
        { timeout: 15_000, interval: 50 },
      );
      const csv = join(suite.path, 'c.csv');
      await writeCampaignCsv(csv, RECORDS);
      const env = { SMS_SEND_USERNAME: 'u', SMS_SEND_PASSWORD: 'p' };
      const send = (...extra: string[]) =>
        runInProcess([csv, '--endpoint', url, ...extra], { cwd: suite.path, env });
      expect((await send()).code).toBe(0);
      const once = (await (await fetch(`${url}/stats`)).json()) as Record<string, number>;
      expect(once).toEqual({ accepted: RECORDS, distinct: RECORDS, duplicates: 0 });
      expect((await send('--force')).code).toBe(0);
      const twice = (await (await fetch(`${url}/stats`)).json()) as Record<string, number>;
      expect(twice).toEqual({ accepted: 2 * RECORDS, distinct: RECORDS, duplicates: RECORDS });
      simulator.kill('SIGINT');
      const stopped = await ended;
      expect(stopped.stderr).toContain(
        `simulator stopped after accepting 50 messages: 25 MessageIds, 25 accepted twice (ledger ${ledger})`,
      );
      const lines = (await readFile(ledger, 'utf8')).trim().split('\n');
      expect(lines).toHaveLength(2 * RECORDS);
      expect(Object.keys(JSON.parse(lines[0]!) as object)).toEqual([
        'messageId',
        'destination',
        'transactionId',
        'at',
      ]);
    } finally {
      killLeft([simulator]);
    }
  });
});
