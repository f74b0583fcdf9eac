// What a command's action reports back to main.ts.
import type { ExitCode } from '../shared/errors.js';

/** The exit code of a run that ended without an error. */
export interface RunState {
  exitCode: ExitCode;
}
