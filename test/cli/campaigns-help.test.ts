// Each campaigns subcommand's help lists the exit codes it can give: only show names a campaign,
// and every one says what a state URL that cannot be used gives (6).
import { describe, expect, it } from 'vitest';
import { runInProcess } from '../helpers/in-process.js';

const help = async (...path: string[]) =>
  (await runInProcess([...path, '--help'])).stdout.split('Exit codes:')[1] ?? '';

describe('campaigns --help', () => {
  it.each([
    [['campaigns'], false],
    [['campaigns', 'show'], true],
    [['campaigns', 'prune'], false],
  ])('%j names a missing campaign: %s', async (path, named) => {
    const codes = await help(...path);
    expect(codes.includes('no such campaign')).toBe(named);
    expect(codes).toMatch(/\n {2}6 +the campaign state database \(--state-url\) cannot be used/);
  });
});
