// What a command's action is given by main.ts, and what it reports back.
import type { ExitCode } from '../shared/errors.js';
import type { Invocation } from './invocation.js';

export interface RunState {
  /** The exit code of a run that ended without an error. */
  exitCode: ExitCode;
  /** How the user ran the program: every command printed for them is written this way. */
  readonly invocation: Invocation;
}
