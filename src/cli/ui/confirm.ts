// The yes/no question a large terminal run asks before sending; Ctrl-D is a "no", Ctrl-C an interrupt.
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
