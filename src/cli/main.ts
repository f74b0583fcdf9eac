// The entry point: parses argv, runs the command, and is the only place that prints errors and exits.
import { readFileSync } from 'node:fs';
import module from 'node:module';
import { CommanderError } from 'commander';
import { SmsSendError } from '../errors.js';
import { buildProgram, type RunState } from './program.js';

// Node 22+ caches compiled code between runs; start-up matters for cron and CI loops.
(module as { enableCompileCache?: () => void }).enableCompileCache?.();

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  return pkg.version;
}

async function main(argv: string[]): Promise<number> {
  const state: RunState = { exitCode: 0, json: argv.includes('--json') };
  const program = buildProgram(state, version());
  try {
    await program.parseAsync(argv);
    return state.exitCode;
  } catch (error) {
    return report(error, state.json);
  }
}

function report(error: unknown, json: boolean): number {
  if (error instanceof CommanderError) {
    // Help and version are successful exits; anything else commander rejects is a usage error.
    if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version') return 0;
    if (error.code === 'commander.help') return 0;
    if (json) printJsonError('usage', error.message.replace(/^error: /, ''), 2);
    return 2;
  }
  if (error instanceof SmsSendError) {
    if (json) printJsonError(error.code, error.message, error.exitCode);
    else process.stderr.write(`sms-send: ${error.message}\n`);
    return error.exitCode;
  }
  const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
  if (json) printJsonError('internal', message, 70);
  else process.stderr.write(`sms-send: unexpected error (please report it):\n${message}\n`);
  return 70;
}

function printJsonError(code: string, message: string, exitCode: number): void {
  process.stdout.write(`${JSON.stringify({ error: { code, message, exitCode } })}\n`);
}

const code = await main(process.argv);
process.exitCode = code;
// Anything left holding the event loop (a hung socket) must not keep a finished run alive.
setTimeout(() => process.exit(code), 2000).unref();
