// Send windows as a process shows them: --no-wait outside the window exits 5 with its message on
// stderr and nothing sent; the dry run's JSON carries the window. The arithmetic and the window
// closing mid-campaign are tested in-process (test/shared/window.test.ts, test/pipeline/window.test.ts).
import { access } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { runInProcess } from '../helpers/in-process.js';
import { tempDir, writeCampaignCsv } from '../helpers/files.js';

let dir: Awaited<ReturnType<typeof tempDir>>;

beforeEach(async () => {
  dir = await tempDir();
});
afterEach(async () => {
  await dir.remove();
});

it('--no-wait before --not-before: exit 5, one line saying when it opens, no report', async () => {
  const input = join(dir.path, 'later.csv');
  await writeCampaignCsv(input, 3);
  const result = await runInProcess([
    input,
    '--simulate',
    '--not-before',
    '2999-01-01T09:00',
    '--tz',
    'Europe/Oslo',
    '--no-wait',
  ]);
  expect(result.code).toBe(5);
  expect(result.stdout).toBe('');
  expect(result.stderr).toMatch(
    /^sms-send: outside the send window \(not before Tue 2999-01-01 09:00 Europe\/Oslo\): it opens Tue 2999-01-01 09:00 Europe\/Oslo \(in \d+ d( \d+ h)?\)\. Nothing was sent; without --no-wait the run waits for it\.\n$/,
  );
  await expect(access(join(dir.path, 'later.report.csv'))).rejects.toThrow();
});

it('--dry-run --json shows the window and when it opens', async () => {
  const input = join(dir.path, 'plan.csv');
  await writeCampaignCsv(input, 2);
  const result = await runInProcess([
    input,
    '--dry-run',
    '--json',
    '--window',
    '22:00-06:00',
    '--days',
    'sat-sun',
    '--tz',
    'America/New_York',
    '--not-before',
    '2999-01-01T12:00Z',
  ]);
  expect(result.code).toBe(0);
  const plan = (JSON.parse(result.stdout) as { plan: { window: unknown } }).plan;
  // 2999-01-01 is a Tuesday: the first weekend night after noon UTC is Saturday 5 January's.
  expect(plan.window).toEqual({
    hours: '22:00-06:00',
    days: 'sat-sun',
    timeZone: 'America/New_York',
    notBefore: '2999-01-01T12:00:00.000Z',
    open: false,
    opensAt: '2999-01-06T03:00:00.000Z',
  });
});
