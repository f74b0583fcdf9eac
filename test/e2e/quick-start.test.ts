// The README's quick start, run twice as a newcomer does: the second run is a rehearsal's second
// run, sent again (exit 0), the first kept under a name of its own and its report renamed, as the
// README says.
import { copyFile, mkdir, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runInProcess } from '../helpers/in-process.js';
import { suiteFolder } from '../helpers/suite.js';

const suite = suiteFolder();

describe('the quick start, twice', () => {
  it('sends again, keeps the rehearsal aside and renames its report, and says so', async () => {
    const samples = join(suite.path, 'samples');
    await mkdir(samples, { recursive: true });
    await copyFile(
      new URL('../../samples/campaign.csv', import.meta.url),
      join(samples, 'campaign.csv'),
    );
    const env = { SMS_SEND_STATE_DIR: join(suite.path, 'state') };
    const first = await runInProcess(['samples/campaign.csv', '--simulate'], {
      cwd: suite.path,
      env,
    });
    expect(first.code, first.stderr).toBe(0);
    const second = await runInProcess(['samples/campaign.csv', '--simulate'], {
      cwd: suite.path,
      env,
    });
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toMatch(
      /was a rehearsal \(sent to a simulator only\): kept as \w+-rehearsal-1/,
    );
    expect((await readdir(samples)).sort()).toEqual([
      'campaign.csv',
      'campaign.rehearsal.report.csv',
      'campaign.report.csv',
    ]);
    const listed = await runInProcess(['campaigns', '--json'], { cwd: suite.path, env });
    const ids = (JSON.parse(listed.stdout) as { campaigns: { id: string }[] }).campaigns.map(
      (c) => c.id,
    );
    expect(ids.filter((id) => id.endsWith('-rehearsal-1'))).toHaveLength(1);
  });
});
