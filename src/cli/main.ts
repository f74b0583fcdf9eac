// The entry point: parses argv, runs the command, and is the only place that prints errors and exits.
import { readFileSync } from 'node:fs';
import module from 'node:module';
import type { Command } from 'commander';
import { ExitCode } from '../shared/errors.js';
import { currentInvocation, type Invocation } from './invocation.js';
import { buildProgram } from './program.js';
import type { RunState } from './run-state.js';
import { renderError } from './ui/error.js';

function packageJson(): { name: string; version: string } {
  return JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    name: string;
    version: string;
  };
}

/**
 * Runs one command line and returns its exit code, having printed any error that ended it. The
 * process itself is left alone, so tests can run a command line in-process.
 */
export async function main(argv: string[]): Promise<number> {
  const pkg = packageJson();
  const state: RunState = { exitCode: ExitCode.ok, invocation: currentInvocation(pkg.name, argv) };
  const program = buildProgram(state, pkg.version);
  try {
    await program.parseAsync(helpAsFlag(argv));
    return state.exitCode;
  } catch (error) {
    return report(error, wantsJson(program) || typedJson(argv), state.invocation);
  }
}

/** Whether the command being run was given --json, as commander parsed it (even when it then failed). */
function wantsJson(command: Command): boolean {
  return command.opts().json === true || command.commands.some(wantsJson);
}

/**
 * --json typed before any `--`, for a command line that failed before a command could parse it
 * (an unknown command): its error is a JSON document all the same.
 */
function typedJson(argv: readonly string[]): boolean {
  const args = argv.slice(2);
  const end = args.indexOf('--');
  return (end < 0 ? args : args.slice(0, end)).includes('--json');
}

/**
 * `help campaigns show` as `campaigns show --help`: commander's help command takes one name, and
 * would show `campaigns`' help for it. No arguments at all is the overview (exit 0), as gh and
 * twilio answer it, not send's missing input.
 */
function helpAsFlag(argv: readonly string[]): string[] {
  const [node = '', script = '', first, ...rest] = argv;
  if (first === undefined) return [node, script, '--help'];
  if (first !== 'help' || rest.length < 2) return [...argv];
  return [node, script, ...rest, '--help'];
}

function report(error: unknown, json: boolean, invocation: Invocation): number {
  const { stream, text, exitCode } = renderError(error, json, invocation);
  if (text) process[stream].write(text);
  return exitCode;
}

/** The process's entry (bin/sms-send.js): runs its command line and ends it with the exit code. */
export async function start(): Promise<void> {
  // Node 22+ caches compiled code between runs; start-up matters for cron and CI loops.
  (module as { enableCompileCache?: () => void }).enableCompileCache?.();
  const code = await main(process.argv);
  process.exitCode = code;
  // Anything left holding the event loop (a hung socket) must not keep a finished run alive.
  setTimeout(() => process.exit(code), 2000).unref();
}
