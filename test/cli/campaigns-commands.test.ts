// `campaigns` as gh and twilio users type it: `campaigns list` as the list, `campaigns prune
// --dry-run` naming what it would remove and removing nothing, and a help that lists only the
// flags the command takes, under the headings the other commands use.
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir, writeCampaignCsv } from '../helpers/files.js';
import { runInProcess } from '../helpers/in-process.js';

let dir: Awaited<ReturnType<typeof tempDir>>;
let env: Record<string, string>;

beforeEach(async () => {
  dir = await tempDir();
  env = { SMS_SEND_STATE_DIR: join(dir.path, 'state'), NO_COLOR: '1' };
});
afterEach(() => dir.remove());

const run = (args: string[]) => runInProcess(args, { cwd: dir.path, env });

/** A campaign sent to the built-in simulator and finished; its ID. */
async function finishedCampaign(name: string): Promise<string> {
  await writeCampaignCsv(join(dir.path, name), 3);
  const sent = await run([name, '--simulate', '--quiet']);
  expect(sent.code, sent.stderr).toBe(0);
  const listed = await run(['campaigns', '--json']);
  const { campaigns } = JSON.parse(listed.stdout) as { campaigns: { id: string }[] };
  return campaigns[0]!.id;
}

async function ids(): Promise<string[]> {
  const listed = await run(['campaigns', '--json']);
  return (JSON.parse(listed.stdout) as { campaigns: { id: string }[] }).campaigns.map((c) => c.id);
}

describe('campaigns list', () => {
  it('prints what campaigns prints, its flags included', async () => {
    const id = await finishedCampaign('a.csv');
    for (const flags of [[], ['--json']]) {
      const list = await run(['campaigns', 'list', ...flags]);
      expect(list.code, list.stderr).toBe(0);
      expect(list.stdout).toContain(id);
      expect(list.stdout).toBe((await run(['campaigns', ...flags])).stdout);
    }
  });

  it('a mistyped list is pointed to it', async () => {
    const typo = await run(['campaigns', 'lsit']);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain("unknown command 'lsit' for 'campaigns'");
    expect(typo.stderr).toContain('did you mean campaigns list?');
  });
});

describe('campaigns prune --dry-run', () => {
  it('names what it would remove, removes nothing; the same line without it removes them', async () => {
    const id = await finishedCampaign('a.csv');
    const dry = await run(['campaigns', 'prune', '--older-than', '0s', '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toBe(
      `would remove the state of 1 finished campaign: ${id}\n` +
        'Nothing was removed (--dry-run). Their reports would be kept.\n',
    );
    expect(await ids()).toEqual([id]);
    const json = await run(['campaigns', 'prune', '--older-than', '0s', '--dry-run', '--json']);
    expect(JSON.parse(json.stdout)).toEqual({ state: env.SMS_SEND_STATE_DIR, wouldRemove: [id] });
    expect(await ids()).toEqual([id]);
    // Without a terminal on stdin (cron, CI, a test) nothing is asked: it removes them.
    const real = await run(['campaigns', 'prune', '--older-than', '0s', '--json']);
    expect(JSON.parse(real.stdout)).toEqual({ state: env.SMS_SEND_STATE_DIR, removed: [id] });
    expect(await ids()).toEqual([]);
  });

  it('keeps a campaign younger than --older-than out of the list', async () => {
    await finishedCampaign('a.csv');
    const dry = await run(['campaigns', 'prune', '--older-than', '90d', '--dry-run']);
    expect(dry.stdout).toBe(`nothing to prune in ${env.SMS_SEND_STATE_DIR}\n`);
  });
});

describe('campaigns --help', () => {
  it("lists the state's flags under the headings of the other commands, and none of a send's", async () => {
    const help = (await run(['campaigns', '--help'])).stdout;
    const flagsPart = help.slice(0, help.indexOf('Commands:'));
    const headings = flagsPart.match(/^\S.*:$/gm);
    expect(headings).toEqual(['Report and state:', 'Output:']);
    const flags = flagsPart.match(/^ {2}(-\w, )?--[\w-]+/gm)?.map((f) => f.trim());
    expect(flags).toEqual([
      '--state-dir',
      '--state-url',
      '--config',
      '--profile',
      '--json',
      '--no-color',
      '-h, --help',
    ]);
    expect(help).toMatch(/^ {2}campaigns list {2,}list the campaigns/m);
  });

  it("--lease, a sending run's hold, is refused as any unknown flag", async () => {
    const lease = await run(['campaigns', '--lease', '30s']);
    expect(lease.code).toBe(2);
    expect(lease.stderr).toContain("unknown option '--lease'");
  });
});
