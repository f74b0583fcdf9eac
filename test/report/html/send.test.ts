// `send --html`: the run keeps its timeline in the campaign's state and writes the page when it
// ends, with the totals `report --json` prints for the same campaign afterwards.
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readRuns } from '../../../src/journal/folder/runs.js';
import { timelineOf } from '../../../src/report/html/timeline.js';
import { hostname } from 'node:os';
import { startSimulator, type Simulator } from '../../../src/simulator/index.js';
import { runInProcess } from '../../helpers/in-process.js';
import { tempDir, writeCampaignCsv } from '../../helpers/files.js';
import { stateJournal } from '../../helpers/reliability.js';

const CREDENTIALS = { SMS_SEND_USERNAME: 'page-user', SMS_SEND_PASSWORD: 'page-pw' };
let dir: Awaited<ReturnType<typeof tempDir>>;
let sim: Simulator;

beforeAll(async () => {
  dir = await tempDir();
  sim = await startSimulator({ faults: { rejectMessage: 0.3 }, seed: 4 });
});
afterAll(async () => {
  await sim.stop();
  await dir.remove();
});

/** The page's outcome counts, as the numbers' exact values in it. */
function pageCounts(page: string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const [, key, value] of page.matchAll(/data-count="(\w+)"><span data-n="(\d+)"/g)) {
    counts[key!] = Number(value);
  }
  return counts;
}

describe('send --html', () => {
  it('writes the page as the run ends, and the timeline holds every answered row', async () => {
    await writeCampaignCsv(join(dir.path, 'campaign.csv'), 30);
    const args = [
      'campaign.csv',
      '--endpoint',
      sim.url,
      '--batch-size',
      '4',
      '--html',
      'page.html',
    ];
    const sent = await runInProcess(args, { cwd: dir.path, env: CREDENTIALS });
    expect(sent.code).toBe(1);
    const json = await runInProcess(['report', 'campaign.report.csv', '--json'], { cwd: dir.path });
    const { report } = JSON.parse(json.stdout) as {
      report: { total: number; byOutcome: Record<string, number> };
    };
    expect(report.byOutcome.rejected).toBeGreaterThan(0);
    const page = await readFile(join(dir.path, 'page.html'), 'utf8');
    expect(pageCounts(page)).toEqual({ ...report.byOutcome, total: report.total });
    const timeline = timelineOf(await readRuns(join(dirname(stateJournal()), 'timeline.json')));
    const run = timeline!.runs[0]!;
    expect(run.host).toBe(hostname());
    expect(run.settings).toMatchObject({ batchSize: 4, concurrency: 4 });
    expect(run.command).toBe(`sms-send ${args.join(' ')}`);
    expect(run.buckets.reduce((sum, b) => sum + b[1], 0)).toBe(30);
    const rows = run.sent.flatMap(([from, to]) =>
      Array.from({ length: to - from + 1 }, (_, i) => from + i),
    );
    expect(rows.sort((a, b) => a - b)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
  });

  it("a follow-up's page shows the retry command as typed, its URL's password masked", async () => {
    await writeCampaignCsv(join(dir.path, 'original.csv'), 30);
    const sent = await runInProcess(['original.csv', '--endpoint', sim.url], {
      cwd: dir.path,
      env: CREDENTIALS,
    });
    expect(sent.code).toBe(1);
    const id = /campaign\s+([0-9a-f]{16})/.exec(sent.stderr + sent.stdout)![1]!;
    const endpoint = sim.url.replace('://', '://gw-user:url-pw@');
    const args = ['retry', id, '--include', 'unknown', '--endpoint', endpoint, '--html', 'fu.html'];
    const retried = await runInProcess(args, { cwd: dir.path, env: CREDENTIALS });
    expect(retried.stderr).toContain(`follow-up of campaign ${id}`);
    const page = await readFile(join(dir.path, 'fu.html'), 'utf8');
    const command = /scope="row">command<\/th>\s*<td>([\s\S]*?)<\/td>/.exec(page)![1]!;
    // The endpoint's user and password masked as everywhere the URL is shown, quoted for the shell.
    const masked = `'${sim.url.replace('://', '://***@')}'`;
    const typed = args.map((arg) => (arg === endpoint ? masked : arg)).join(' ');
    const shown = command
      .replace(/<[^>]+>/g, '')
      .replaceAll('&#39;', "'")
      .replace(/\s+/g, ' ');
    expect(shown.trim()).toBe(`sms-send ${typed}`);
    expect(page).not.toContain('url-pw');
  });
});
