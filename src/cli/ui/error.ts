// How an error that ends a run is shown: the text main.ts writes, on which stream, and the exit code.
import { CommanderError } from 'commander';
import { ExitCode, SmsSendError, StateStoreError, stateStoreFailure } from '../../shared/errors.js';
import { errorJson } from '../../campaign/documents.js';
import { commandFor, commandNotes, type Invocation } from '../invocation.js';

/** `Finish it with:\n  sms-send campaign.csv --resume\n`, or nothing. */
function nextText(error: SmsSendError, invocation: Invocation | undefined): string {
  if (!error.next || !invocation) return '';
  const command = commandFor(invocation, error.next);
  return `${error.next.say} with:\n  ${command}${commandNotes(command)}\n`;
}

export interface ErrorOutput {
  stream: 'stdout' | 'stderr';
  /** Empty when nothing is to be printed (help and version end through commander). */
  text: string;
  exitCode: ExitCode;
}

/**
 * An error as the user sees it: a line on stderr, or under --json a document on stdout. A refusal
 * with a next step ends with its command, written the way the user runs the program.
 */
export function renderError(thrown: unknown, json: boolean, invocation?: Invocation): ErrorOutput {
  // A state database's failure outside a send (a list, a report): in its words, with its code.
  const error = thrown instanceof StateStoreError ? stateStoreFailure(thrown) : thrown;
  // Help and version are successful exits; program.ts turns every other commander error into a
  // UsageError in sms-send's voice.
  if (error instanceof CommanderError) return { stream: 'stdout', text: '', exitCode: ExitCode.ok };
  if (error instanceof SmsSendError) {
    const document = error.document ?? { error: errorJson(error) };
    return json
      ? { stream: 'stdout', text: `${JSON.stringify(document)}\n`, exitCode: error.exitCode }
      : {
          stream: 'stderr',
          text: `sms-send: ${error.message}\n${nextText(error, invocation)}`,
          exitCode: error.exitCode,
        };
  }
  const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
  if (!json) {
    const text = `sms-send: unexpected error (please report it):\n${message}\n`;
    return { stream: 'stderr', text, exitCode: ExitCode.internal };
  }
  const internal = { code: 'internal' as const, message, exitCode: ExitCode.internal };
  const text = `${JSON.stringify({ error: errorJson(internal) })}\n`;
  return { stream: 'stdout', text, exitCode: ExitCode.internal };
}
