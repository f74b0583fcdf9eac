// Every command that reads campaign state takes --state-dir (beside SMS_SEND_STATE_DIR and the
// config's stateDir), after its own name as users type it, and lists it in its help.
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/program.js';
import { ExitCode } from '../../src/shared/errors.js';

/** Each command that reads or writes the state directory, with the arguments it needs. */
const READS_STATE: [path: string, args: string[]][] = [
  ['send', ['x.csv']],
  ['retry', ['3f2a9b1c']],
  ['config', []],
  ['campaigns', []],
  ['campaigns show', ['3f2a9b1c']],
  ['campaigns prune', ['--older-than', '90d']],
  ['dlr', ['--report', 'r.csv']],
  ['dlr apply', ['--report', 'r.csv', '--from', 'dlr.ndjson']],
];

/** Stops a parsed command line before its action runs. */
class Parsed extends Error {
  constructor(readonly options: Record<string, unknown>) {
    super('parsed');
  }
}

function program(): Command {
  return buildProgram({ exitCode: ExitCode.ok }, '0.0.0-test')
    .hook('preAction', (_root, action) => {
      throw new Parsed(action.optsWithGlobals());
    })
    .configureOutput({ getOutHelpWidth: () => 80, getOutHasColors: () => false });
}

function find(path: string): Command {
  let found = program();
  for (const name of path.split(' ')) found = found.commands.find((c) => c.name() === name)!;
  return found;
}

describe('--state-dir on every command that reads campaign state', () => {
  it('the list names commands that exist', () => {
    for (const [path] of READS_STATE) expect(find(path), path).toBeDefined();
  });

  it.each(READS_STATE)('sms-send %s … --state-dir DIR', async (path, args) => {
    const argv = [...path.split(' '), ...args, '--state-dir', '/tmp/elsewhere'];
    const error: unknown = await program()
      .parseAsync(argv, { from: 'user' })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(error, String(error)).toBeInstanceOf(Parsed);
    expect((error as Parsed).options.stateDir).toBe('/tmp/elsewhere');
  });

  it.each(READS_STATE)('sms-send %s --help lists --state-dir', (path) => {
    const command = find(path);
    expect(command.helpInformation()).toContain('--state-dir <path>');
  });
});
