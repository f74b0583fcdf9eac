// Every command's and subcommand's --help, walked: each has examples and its exit codes, lists
// every option once, lists only options the command takes, and points at nothing vague or gone.
import { readFileSync } from 'node:fs';
import { Help, type Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/program.js';

const program = buildProgram(
  { exitCode: 0, invocation: { program: 'sms-send', args: [] } },
  '0.0.0',
);

/** Every command people can run, as `['campaigns', 'show']`, with the command itself. */
function commands(from: Command, path: string[] = []): Array<[string, Command]> {
  return new Help()
    .visibleCommands(from)
    .filter((c) => c.name() !== 'help')
    .flatMap((c) => [
      [[...path, c.name()].join(' '), c] as [string, Command],
      ...commands(c, [...path, c.name()]),
    ]);
}

/** The long flags the help lists, options and global options alike, in order. */
function listed(help: string): string[] {
  return [...help.matchAll(/^ {2}(?:-\w, )?(--[\w-]+)/gm)].map((m) => m[1]!);
}

/** The long flags a command parses: its own and its ancestors'. */
function declared(command: Command): Set<string> {
  const flags = new Set<string>();
  for (let c: Command | null = command; c; c = c.parent) {
    for (const option of c.options) if (option.long) flags.add(option.long);
  }
  flags.add('--help');
  return flags;
}

const ALL = commands(program);

describe('every --help', () => {
  it('walks every command there is', () => {
    expect(ALL.map(([name]) => name).sort()).toEqual(
      [
        'campaigns',
        'campaigns list',
        'campaigns prune',
        'campaigns show',
        'check',
        'completion',
        'config',
        'dlr',
        'dlr apply',
        'report',
        'retry',
        'send',
        'simulate',
      ].sort(),
    );
  });

  it.each(ALL)(
    '%s: examples, exit codes, each option once and taken, no vague pointer',
    (_name, command) => {
      const help = command.helpInformation();
      expect(help).toMatch(/^Examples:\n {2}# .+\n {2}\$ .*sms-send /m);
      expect(help).toMatch(/^Exit codes:\n {2}0 /m);
      const flags = listed(help);
      expect(flags.filter((flag, i) => flags.indexOf(flag) !== i)).toEqual([]);
      const parsed = declared(command);
      expect(flags.filter((flag) => !parsed.has(flag))).toEqual([]);
      expect(help).not.toMatch(/see (the )?README/i);
      for (const [, file, anchor] of help.matchAll(/(docs\/[\w-]+\.md)(?:#([\w-]+))?/g)) {
        const text = readFileSync(file!, 'utf8');
        if (anchor !== undefined) {
          const headings = [...text.matchAll(/^#+ (.+)$/gm)].map((m) =>
            m[1]!
              .toLowerCase()
              .replace(/[^\w\s-]/g, '')
              .replace(/\s+/g, '-'),
          );
          expect(headings, `${file}#${anchor}`).toContain(anchor);
        }
      }
    },
  );

  it('dlr apply does not list the receiver options it refuses', () => {
    const apply = ALL.find(([name]) => name === 'dlr apply')![1];
    const flags = listed(apply.helpInformation());
    expect(flags).toContain('--report');
    for (const refused of ['--port', '--host', '--out']) expect(flags).not.toContain(refused);
  });
});
