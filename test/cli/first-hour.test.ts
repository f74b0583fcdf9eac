// What a new user types in the first hour and must not find a dead end in: help for a subcommand
// asked as `help campaigns show`, and --json on a command line that names no command.
import { describe, expect, it } from 'vitest';
import { runInProcess } from '../helpers/in-process.js';

describe('help for a subcommand', () => {
  it.each([
    [['help', 'campaigns', 'show'], 'Usage: sms-send campaigns show'],
    [['help', 'dlr', 'apply'], 'Usage: sms-send dlr apply'],
    [['help', 'campaigns'], 'Usage: sms-send campaigns'],
  ])('sms-send %j prints its help, exit 0', async (args, usage) => {
    const run = await runInProcess(args);
    expect(run.code).toBe(0);
    expect(run.stdout.split('\n')[0]).toMatch(new RegExp(`^${usage} `));
  });
});

describe('--json on a command line that names no command', () => {
  it('sms-send sned --json: the error is one JSON document on stdout, exit 2', async () => {
    const run = await runInProcess(['sned', '--json']);
    expect(run.code).toBe(2);
    expect(JSON.parse(run.stdout)).toEqual({
      error: {
        code: 'usage',
        message: "unknown command or input 'sned' (did you mean send?)",
        exitCode: 2,
      },
    });
    expect(run.stderr).toBe('');
  });

  it('a --json after -- is an argument, not the flag', async () => {
    const run = await runInProcess(['sned', '--', '--json']);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain("unknown command or input 'sned'");
  });
});
