// The yes/no question a large terminal run asks before sending; Ctrl-D is a "no", Ctrl-C an interrupt.
import { createWriteStream } from 'node:fs';
import { createInterface } from 'node:readline/promises';

export type Answer = 'yes' | 'no' | 'interrupted';

export async function confirm(
  question: string,
  input: NodeJS.ReadableStream = process.stdin,
  output: NodeJS.WritableStream = process.stderr,
): Promise<Answer> {
  const rl = createInterface({ input, output });
  let cut: (answer: Answer) => void = () => undefined;
  // End of input (Ctrl-D) is a "no", not a hang. Ctrl-C reaches readline as a key when the
  // terminal is in raw mode, and the process as a signal otherwise: both interrupt.
  const cutShort = new Promise<Answer>((resolve) => (cut = resolve));
  const interrupt = () => cut('interrupted');
  rl.once('close', () => cut('no'));
  rl.on('SIGINT', interrupt);
  process.on('SIGINT', interrupt);
  try {
    const typed = rl
      .question(`${question} [y/N] `)
      .then((text) => ({ answer: /^y(es)?$/i.test(text.trim()) ? 'yes' : 'no' }) as const);
    const result = await Promise.race([typed, cutShort]);
    if (typeof result === 'object') return result.answer;
    // No Enter was pressed: what comes next starts on a line of its own, not after the question.
    output.write('\n');
    return result;
  } finally {
    process.off('SIGINT', interrupt);
    rl.close();
  }
}

/**
 * Asks on the terminal the answer is typed at (standard input): on stderr when it is that
 * terminal, else on stdout, else on the process's terminal itself (`2> log` from a shell).
 */
export async function confirmOnTerminal(question: string): Promise<Answer> {
  if (process.stderr.isTTY) return confirm(question);
  if (process.stdout.isTTY) return confirm(question, process.stdin, process.stdout);
  const tty = await openTerminal();
  if (!tty) return confirm(question);
  try {
    return await confirm(question, process.stdin, tty);
  } finally {
    tty.end();
  }
}

/** The controlling terminal, for writing; undefined where there is none to open. */
function openTerminal(): Promise<NodeJS.WritableStream | undefined> {
  return new Promise((resolve) => {
    const tty = createWriteStream('/dev/tty');
    tty.once('open', () => resolve(tty));
    tty.once('error', () => resolve(undefined));
  });
}
