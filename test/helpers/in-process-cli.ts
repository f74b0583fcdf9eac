// The whole command line in-process: the real program parses argv and runs the command, its
// output captured, and an error that ends the run shown as main.ts shows it (exit code, text).
// For what a user reads and the command it names, without the cost of a process per run.
import { vi } from 'vitest';
import { buildProgram } from '../../src/cli/program.js';
import type { RunState } from '../../src/cli/run-state.js';
import { renderError } from '../../src/cli/ui/error.js';
import { ExitCode } from '../../src/shared/errors.js';

export interface InProcessRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs `sms-send ARGS` as main.ts would, `program` being how the user runs it. Credentials and
 * the state directory come from process.env, as for the binary; paths in ARGS should be absolute.
 * Runs must not overlap: stdout and stderr are the process's own.
 */
export async function runInProcess(
  args: readonly string[],
  program = 'sms-send',
): Promise<InProcessRun> {
  const state: RunState = { exitCode: ExitCode.ok, invocation: { program, args } };
  const output = { stdout: '', stderr: '' };
  const capture = (stream: 'stdout' | 'stderr') =>
    vi.spyOn(process[stream], 'write').mockImplementation((chunk: string | Uint8Array) => {
      output[stream] += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString();
      return true;
    });
  const spies = [capture('stdout'), capture('stderr')];
  try {
    await buildProgram(state, '0.0.0-test').parseAsync([...args], { from: 'user' });
    return { code: state.exitCode, ...output };
  } catch (error) {
    const shown = renderError(error, args.includes('--json'), state.invocation);
    output[shown.stream] += shown.text;
    return { code: shown.exitCode, ...output };
  } finally {
    for (const spy of spies) spy.mockRestore();
  }
}

/** The command a message names on the line after "…with:", as words (its paths need no quoting). */
export function namedCommand(message: string, program = 'sms-send'): string[] | undefined {
  const line = new RegExp(`with:\\n {2}${program} (.+)`).exec(message);
  return line?.[1]?.split(' ');
}
