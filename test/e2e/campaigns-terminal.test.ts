// `sms-send campaigns` on a real (pseudo-)terminal: prune asks before removing (and a "no"
// removes nothing), --yes does not ask, and the list fits an 80-column terminal.
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir, writeCampaignCsv } from '../helpers/files.js';
import { runInProcess } from '../helpers/in-process.js';
import { onTerminal, SCRIPT } from '../helpers/terminal.js';

const SGR = /\x1b\[[\d;]*m/g; // eslint-disable-line no-control-regex
const QUESTION = 'will be removed (their reports are kept):';

let dir: Awaited<ReturnType<typeof tempDir>>;
let env: Record<string, string>;

beforeEach(async () => {
  dir = await tempDir();
  env = { SMS_SEND_STATE_DIR: join(dir.path, 'state'), NO_COLOR: '1' };
});
afterEach(() => dir.remove());

/** A finished campaign (to the built-in simulator) whose report has a long path; its ID. */
async function finishedCampaign(): Promise<string> {
  await writeCampaignCsv(join(dir.path, 'a.csv'), 3);
  const report = join(dir.path, 'reports-of-the-autumn-campaign', 'a.report.csv');
  await mkdir(join(dir.path, 'reports-of-the-autumn-campaign'));
  const sent = await runInProcess(['a.csv', '--simulate', '--quiet', '--report', report], {
    cwd: dir.path,
    env,
  });
  expect(sent.code, sent.stderr).toBe(0);
  return ids().then((all) => all[0]!);
}

async function ids(): Promise<string[]> {
  const listed = await runInProcess(['campaigns', '--json'], { cwd: dir.path, env });
  return (JSON.parse(listed.stdout) as { campaigns: { id: string }[] }).campaigns.map((c) => c.id);
}

const prune = ['campaigns', 'prune', '--older-than', '0s'];

describe.skipIf(!SCRIPT)('campaigns on a terminal', () => {
  it('prune lists what it will remove and asks; "n" removes nothing (exit 2)', async () => {
    const id = await finishedCampaign();
    const run = await onTerminal(prune, {
      cwd: dir.path,
      env,
      type: [{ when: '[y/N] ', keys: 'n\r' }],
    });
    expect(run.code).toBe(2);
    expect(run.screen).toContain(`${QUESTION}\r\n  ${id}\r\nRemove it? [y/N] `);
    expect(run.screen).toContain('sms-send: not confirmed: nothing was removed');
    expect(await ids()).toEqual([id]);
  });

  it('prune answered "y" removes them', async () => {
    const id = await finishedCampaign();
    const run = await onTerminal(prune, {
      cwd: dir.path,
      env,
      type: [{ when: '[y/N] ', keys: 'y\r' }],
    });
    expect(run.code).toBe(0);
    expect(run.screen).toContain(`${QUESTION}\r\n  ${id}\r\nRemove it? [y/N] `);
    expect(run.screen).toContain(`removed the state of 1 finished campaign: ${id}`);
    expect(await ids()).toEqual([]);
  });

  it('prune --yes does not ask', async () => {
    const id = await finishedCampaign();
    const run = await onTerminal([...prune, '--yes'], { cwd: dir.path, env });
    expect(run.code).toBe(0);
    expect(run.screen).not.toContain(QUESTION);
    expect(run.screen).toContain(`removed the state of 1 finished campaign: ${id}`);
    expect(await ids()).toEqual([]);
  });

  it('the list fits 80 columns; piped, its cells are whole', async () => {
    const id = await finishedCampaign();
    const run = await onTerminal(['campaigns'], {
      cwd: dir.path,
      env: { ...env, NO_COLOR: '' },
      columns: 80,
    });
    expect(run.code).toBe(0);
    const lines = run.screen.replace(SGR, '').trimEnd().split('\r\n');
    expect(lines[0]).toMatch(/^ID +STARTED \(UTC\) +STATUS +ACCEPTED +OTHER/);
    expect(lines[1]).toMatch(
      new RegExp(`^${id} +\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d +finished, rehearsal +3 / 3\\b`),
    );
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(80);
    const piped = await runInProcess(['campaigns'], { cwd: dir.path, env });
    expect(piped.stdout).toContain(
      join(dir.path, 'reports-of-the-autumn-campaign', 'a.report.csv'),
    );
    expect(piped.stdout.split('\n')[1]!.length).toBeGreaterThan(80);
  });
});
