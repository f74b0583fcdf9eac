// Input errors name the file and line, and end the run with exit 2 before anything is sent.
import { UsageError } from '../shared/errors.js';

export class InputError extends UsageError {
  readonly file: string;
  readonly line?: number;
  /** What is wrong, without the file, line or closing words. */
  readonly reason: string;
  constructor(file: string, line: number | undefined, message: string) {
    // A broken file stops the run before anything is sent, as every input problem does; say so.
    const where = line === undefined ? file : `${file}:${line}`;
    super(`${where}: ${message}. Nothing was sent.`, 'input', undefined, [
      { file, ...(line === undefined ? {} : { line }), reason: message },
    ]);
    this.file = file;
    this.line = line;
    this.reason = message;
  }
}
