// The commander program: the root, its commands (each defined beside it in commands/) and the
// usage errors. Actions load their modules lazily to keep --help fast.
import { Command, Help, type CommanderError } from 'commander';
import { UsageError } from '../shared/errors.js';
import { nearestName } from '../shared/nearest.js';
import { defineCampaigns } from './commands/campaigns-flags.js';
import { defineCheck } from './commands/check-flags.js';
import { defineCompletion } from './commands/completion-flags.js';
import { defineConfig } from './commands/config-flags.js';
import { defineDlr } from './commands/dlr-flags.js';
import { defineReport } from './commands/report-flags.js';
import { defineRetry } from './commands/retry-flags.js';
import { defineSend } from './commands/send-flags.js';
import { defineSimulate } from './commands/simulate-flags.js';
import { examples, formatSections, learnMore, setHelp } from './help.js';
import type { RunState } from './run-state.js';
import { sampleExample } from './sample.js';

/** Commander codes that are not errors: help and version were asked for. */
const NOT_AN_ERROR = new Set(['commander.helpDisplayed', 'commander.version', 'commander.help']);

export function buildProgram(state: RunState, version: string): Command {
  const program = new Command('sms-send')
    .description(
      'Send bulk SMS from CSV or JSON through the RestSmsRequest gateway, with a per-message report.',
    )
    .version(version, '-V, --version')
    .showSuggestionAfterError()
    // Before the subcommands exist, so they inherit them: commander prints nothing itself and
    // throws; usageErrors() below rewords what it throws, and main.ts prints it.
    .exitOverride()
    .configureOutput({ outputError: () => undefined })
    .configureHelp({
      sortSubcommands: false,
      showGlobalOptions: false,
      // The overview names every command a user can run, a command's own subcommands included
      // (`campaigns show`, `dlr apply`), each under its full name.
      visibleCommands(this: Help, command: Command): Command[] {
        const direct = Help.prototype.visibleCommands.call(this, command);
        if (command.parent) return direct;
        return direct.flatMap((sub) => [
          sub,
          ...Help.prototype.visibleCommands.call(this, sub).filter((c) => c.name() !== 'help'),
        ]);
      },
      subcommandTerm(this: Help, command: Command): string {
        const term = Help.prototype.subcommandTerm.call(this, command);
        return command.parent?.parent ? `${command.parent.name()} ${term}` : term;
      },
      formatHelp(this: Help, command: Command, helper: Help): string {
        return (
          Help.prototype.formatHelp.call(this, command, helper) + formatSections(command, helper)
        );
      },
    });

  defineSend(program, state);
  defineCheck(program, state);
  defineConfig(program, state);
  defineCampaigns(program, state);
  defineRetry(program, state);
  defineSimulate(program, state);
  defineDlr(program, state);
  defineReport(program, state);
  defineCompletion(program, state);
  setHelp(program, [
    examples([
      [
        'try it: the built-in simulator, nothing reaches a phone',
        `sms-send ${sampleExample().send} --simulate`,
      ],
      ['check the gateway and the credentials (CI)', 'sms-send check'],
      ['count its report by outcome', `sms-send report ${sampleExample().report}`],
    ]),
    learnMore(),
  ]);
  usageErrors(program, state.invocation.program);
  return program;
}

/**
 * Every command's usage errors in sms-send's voice: commander's message without its "error: ",
 * with a hint, thrown as a UsageError for main.ts to print (exit 2). Help and version stay
 * commander's own (main.ts treats them as success).
 */
function usageErrors(command: Command, programName: string): void {
  command.exitOverride((error) => {
    if (NOT_AN_ERROR.has(error.code)) throw error;
    throw new UsageError(usageMessage(error, command, programName), 'usage');
  });
  for (const sub of command.commands) usageErrors(sub, programName);
}

/** The first argument of a command that has subcommands, when it is one or two edits from one. */
function subcommandTypo(command: Command): { word: string; meant: string } | undefined {
  const word = command.args[0];
  if (word === undefined || command.commands.length === 0) return undefined;
  const names = new Help().visibleCommands(command).map((c) => c.name());
  const meant = nearestName(word, names);
  return meant === undefined ? undefined : { word, meant };
}

/**
 * `error: unknown option '--simlate'\n(Did you mean --simulate?)` → one line with a hint; the
 * help it points to is named the way the user runs the program (`programName`).
 */
function usageMessage(error: CommanderError, command: Command, programName: string): string {
  let message = error.message.replace(/^error: /, '');
  let hint: string | undefined;
  const suggestion = /\s*\(Did you mean (.+)\?\)\s*$/.exec(message);
  if (suggestion) {
    message = message.slice(0, suggestion.index);
    hint = `did you mean ${suggestion[1]}?`;
  }
  // `option '--limit <n>' argument 'x' is invalid. must be …` → `--limit "x": must be …`, as
  // the settings' own problems read.
  const invalid = /^option '(--[\w-]+)[^']*' argument '(.*)' is invalid\. (.*)$/s.exec(message);
  if (invalid) message = `${invalid[1]} "${invalid[2]}": ${invalid[3]}`;
  // Only the root raises it, for a first input that does not exist and looks like a command.
  if (error.code === 'commander.unknownCommand') {
    message = message.replace('unknown command', 'unknown command or input');
  }
  // `campaigns shwo x`: the word where a subcommand goes is most likely a mistyped one.
  const typo = error.code === 'commander.excessArguments' ? subcommandTypo(command) : undefined;
  if (typo) {
    message = `unknown command '${typo.word}' for '${command.name()}'`;
    hint = `did you mean ${command.name()} ${typo.meant}?`;
  }
  const names: string[] = [];
  for (let c: Command | null = command; c?.parent; c = c.parent) names.unshift(c.name());
  names.unshift(programName);
  // A missing input with no command given is best answered by the overview.
  const implicit = command.parent?.args[0] !== command.name();
  // `sms-send -v` alone: -v is send's --verbose (as gh, sms-send's version is --version only).
  if (error.code === 'commander.missingArgument' && implicit && loneVerbose(command)) {
    return `-v is --verbose, for a send: it needs an input (did you mean ${programName} --version?)`;
  }
  const helpOf = error.code === 'commander.missingArgument' && implicit ? [names[0]] : names;
  return `${message} (${hint ?? `run ${helpOf.join(' ')} --help`})`;
}

/** Whether the command line was `-v` and nothing else (given to the default command, send). */
function loneVerbose(command: Command): boolean {
  const typed = command.parent?.args ?? [];
  return typed.length === 1 && typed[0] === '-v';
}
