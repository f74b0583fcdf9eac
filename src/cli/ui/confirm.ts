// The yes/no question a large terminal run asks before sending; end of input (Ctrl-D) is a "no".
import { createInterface } from 'node:readline/promises';

export async function confirm(question: string): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  // End of input (Ctrl-D) is a "no", not a hang.
  const closed = new Promise<string>((resolve) => rl.once('close', () => resolve('')));
  try {
    const answer = await Promise.race([rl.question(`${question} [y/N] `), closed]);
    return /^y(es)?$/i.test(answer.trim());
  } finally {
    rl.close();
  }
}
