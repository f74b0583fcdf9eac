// Input errors name the file and line, and end the run with exit 2 before anything is sent.
import { UsageError } from '../errors.js';

export class InputError extends UsageError {
  readonly file: string;
  readonly line?: number;
  constructor(file: string, line: number | undefined, message: string) {
    super(`${line === undefined ? file : `${file}:${line}`}: ${message}`, 'input', undefined, [
      { file, ...(line === undefined ? {} : { line }), reason: message },
    ]);
    this.file = file;
    this.line = line;
  }
}
