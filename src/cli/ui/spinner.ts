// The one live status line every command uses: an ora spinner when stderr can show one, else nothing.
import type { default as oraFactory, Ora } from 'ora';
import { colorFor } from './color.js';

/** The part of a terminal stream the live line needs; a test passes a fake one. */
export interface StatusStream {
  readonly isTTY?: boolean;
  readonly columns?: number;
  write(text: string): boolean;
}

export interface LiveLine {
  /** Whether a spinner is drawn (a terminal with a size); otherwise only `say` prints. */
  readonly spinning: boolean;
  /** Replaces the spinner's text. */
  update(text: string): void;
  /** A line for the operator, printed above the spinner so it is never lost under it. */
  say(text: string): void;
  /** Shows the last text once more and stops; safe to call twice. */
  stop(text?: string): void;
}

/**
 * A spinner only where ora draws one (is-interactive: a terminal, not TERM=dumb, no CI variable;
 * elsewhere it stays still and the plain lines are what moves), and only on a terminal that
 * reports its width: a pseudo-terminal with zero columns (`script`) makes ora redraw forever.
 */
export function canSpin(stream: StatusStream): boolean {
  const interactive =
    stream.isTTY === true && process.env['TERM'] !== 'dumb' && !('CI' in process.env);
  return interactive && (stream.columns ?? 0) > 0;
}

type OraFactory = typeof oraFactory;

// ora, and the Unicode width tables it brings, only where a spinner can be drawn: in cron, CI and
// pipes they were a cost of every start for nothing.
let ora: OraFactory | undefined = canSpin(process.stderr)
  ? (await import('ora')).default
  : undefined;

/** Loads ora for a live line on another stream than stderr (a test's fake terminal). */
export async function loadSpinner(): Promise<void> {
  ora ??= (await import('ora')).default;
}

export function startLiveLine(text: string, stream: StatusStream = process.stderr): LiveLine {
  const spinner: Ora | undefined =
    canSpin(stream) && ora
      ? ora({
          text,
          stream: stream as NodeJS.WritableStream,
          discardStdin: false,
          // ora paints its frame with a chalk of its own, which does not read NO_COLOR.
          color: colorFor('stderr').level > 0 ? 'cyan' : false,
        }).start()
      : undefined;
  let stopped = false;
  return {
    spinning: spinner !== undefined,
    update(next) {
      if (spinner && !stopped) spinner.text = next;
    },
    say(line) {
      if (spinner && !stopped) {
        spinner.clear();
        stream.write(`${line}\n`);
        spinner.render();
      } else stream.write(`${line}\n`);
    },
    stop(last) {
      if (!spinner || stopped) return;
      stopped = true;
      if (last !== undefined) spinner.text = last;
      spinner.stop();
    },
  };
}
