// The entry point: parses argv, runs the command, and is the only place that prints errors and exits.
import { readFileSync } from 'node:fs';
import module from 'node:module';
import { CommanderError, type Command } from 'commander';
import { ExitCode, SmsSendError } from '../errors.js';
import { buildProgram, type RunState } from './program.js';
import { errorJson } from './ui/json.js';

// Node 22+ caches compiled code between runs; start-up matters for cron and CI loops.
(module as { enableCompileCache?: () => void }).enableCompileCache?.();

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  return pkg.version;
}

async function main(argv: string[]): Promise<number> {
  const state: RunState = { exitCode: ExitCode.ok };
  const program = buildProgram(state, version());
  try {
    await program.parseAsync(argv);
    return state.exitCode;
  } catch (error) {
    return report(error, wantsJson(program));
  }
}

/** Whether the command being run was given --json, as commander parsed it (even when it then failed). */
function wantsJson(command: Command): boolean {
  return command.opts().json === true || command.commands.some(wantsJson);
}

function report(error: unknown, json: boolean): number {
  // Help and version are successful exits; program.ts turns every other commander error into a
  // UsageError in sms-send's voice.
  if (error instanceof CommanderError) return ExitCode.ok;
  if (error instanceof SmsSendError) {
    if (!json) process.stderr.write(`sms-send: ${error.message}\n`);
    else if (error.document) process.stdout.write(`${JSON.stringify(error.document)}\n`);
    else process.stdout.write(`${JSON.stringify({ error: errorJson(error) })}\n`);
    return error.exitCode;
  }
  const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
  if (json) {
    const internal = { code: 'internal', message, exitCode: ExitCode.internal };
    process.stdout.write(`${JSON.stringify({ error: errorJson(internal) })}\n`);
  } else process.stderr.write(`sms-send: unexpected error (please report it):\n${message}\n`);
  return ExitCode.internal;
}

const code = await main(process.argv);
process.exitCode = code;
// Anything left holding the event loop (a hung socket) must not keep a finished run alive.
setTimeout(() => process.exit(code), 2000).unref();
