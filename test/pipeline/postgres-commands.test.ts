// Under a state URL given as a flag, every command sms-send prints carries it (its password masked,
// with the note that says to type it in again): the refusal of a campaign another run holds, the
// summary's follow-up, the page's follow-ups. Each, pasted as printed, finds the campaign.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';
import { tempDir, writeCampaignCsv } from '../helpers/files.js';
import { startCli } from '../helpers/cli.js';
import { runInProcess } from '../helpers/in-process.js';
import { waitFor } from '../helpers/reliability.js';
import { usePostgres } from '../helpers/postgres.js';

const PASSWORD = 'db-secret-3';

const server = usePostgres(async (started) => {
  await started.query(started.url, `CREATE ROLE sender LOGIN SUPERUSER PASSWORD '${PASSWORD}'`);
});

let dir: Awaited<ReturnType<typeof tempDir>>;
let sim: Simulator;
let stateUrl: string;
beforeEach(async () => {
  dir = await tempDir();
  await writeCampaignCsv(join(dir.path, 'campaign.csv'), 50);
  sim = await startSimulator({ seed: 2, faults: { rejectMessage: 0.2 } });
  stateUrl = (await server.database()).replace('postgres@', `sender:${PASSWORD}@`);
});
afterEach(async () => {
  await sim.stop();
  await dir.remove();
});

function run(argv: string[]) {
  return runInProcess(argv, {
    cwd: dir.path,
    env: {
      SMS_SEND_STATE_DIR: join(dir.path, 'state'),
      SMS_SEND_USERNAME: 'u',
      SMS_SEND_PASSWORD: 'p',
    },
  });
}

const sendLine = () => [
  'campaign.csv',
  ...['--endpoint', sim.url, '--state-url', stateUrl, '--yes'],
];

/** Every command a text prints after `… with:`, as argv, the masked password typed in again. */
function commands(text: string): string[][] {
  return [...text.matchAll(/(?:with|:)\n {2}(?:npx )?sms-send (.+)\n/g)].map((m) => pasted(m[1]!));
}

function pasted(line: string): string[] {
  return line
    .split(' ')
    .map((word) => word.replace(/^'(.*)'$/, '$1').replace('***@', `sender:${PASSWORD}@`));
}

describe('a state URL given as a flag is carried by every command printed', () => {
  it('the refusal of a campaign another run holds (exit 4) names it once, and how to see it', async () => {
    // Another host sends the same campaign, slowly.
    await sim.stop();
    sim = await startSimulator({ seed: 2, faults: { latencyMs: 200 } });
    const other = startCli([...sendLine(), '--batch-size', '1', '--report', 'other.csv'], {
      cwd: dir.path,
      env: {
        SMS_SEND_STATE_DIR: join(dir.path, 'other-host'),
        SMS_SEND_USERNAME: 'u',
        SMS_SEND_PASSWORD: 'p',
      },
    });
    try {
      await waitFor(() => sim.ledger.length > 0, 'the other host to send');
      const refused = await run(sendLine());
      expect(refused.code, refused.stderr).toBe(4);
      const campaign = /campaign (\w+) is held by another run/.exec(refused.stderr)![1]!;
      expect(refused.stderr.split(campaign)).toHaveLength(3);
      expect(refused.stdout + refused.stderr).not.toContain(PASSWORD);
      expect(refused.stderr).toMatch(/a password in a URL is shown as \*\*\*/);
      const [see] = commands(refused.stderr);
      expect(see?.slice(0, 3)).toEqual(['campaigns', 'show', campaign]);
      expect(see).toContain('--state-url');
      const shown = await run(see!);
      expect(shown.code, shown.stderr).toBe(0);
      expect(shown.stdout).toContain(campaign);
    } finally {
      other.kill('SIGKILL');
    }
  });

  it("the summary's follow-up and the page's, pasted, find the campaign", async () => {
    const sent = await run([...sendLine(), '--html', 'page.html']);
    expect(sent.code, sent.stderr).toBe(1);
    expect(sent.stdout + sent.stderr).not.toContain(PASSWORD);
    const [retry] = commands(sent.stderr).filter((argv) => argv[0] === 'retry');
    expect(retry).toContain('--state-url');
    const page = await readFile(join(dir.path, 'page.html'), 'utf8');
    expect(page).not.toContain(PASSWORD);
    expect(page).toMatch(/A password in a URL is shown as \*\*\*/);
    const fromPage = [...page.matchAll(/<code class="command"[^>]*>([\s\S]*?)<\/code/g)]
      .map((m) =>
        m[1]!
          .replace(/<[^>]+>/g, '')
          .replace(/\s+/g, ' ')
          .replace(/&#39;/g, "'")
          .trim(),
      )
      .filter((line) => /^(?:npx )?sms-send retry /.test(line))
      .map((line) => pasted(line.replace(/^(?:npx )?sms-send /, '')));
    expect(fromPage.length).toBeGreaterThan(0);
    for (const argv of fromPage) expect(argv).toContain('--state-url');
    const retried = await run([...retry!, '--yes', '--dry-run']);
    expect(retried.code, retried.stderr).toBe(0);
  });
});
