// sms-send on a real (pseudo-)terminal, through script(1) from util-linux: what pipes cannot show
// (the spinner, the prompt, Ctrl-C typed as a key) for the tests that need a terminal.
import { spawn, spawnSync } from 'node:child_process';
import { shellWord } from '../../src/shared/shell.js';
import { BIN, cleanEnv } from './cli.js';

/** util-linux's script: `-e` returns the child's exit code, `-c` runs a command, `-q` is quiet. */
export const SCRIPT = (() => {
  const probe = spawnSync('script', ['--version'], { encoding: 'utf8' });
  return probe.status === 0 && probe.stdout.includes('util-linux');
})();

export interface PtyResult {
  code: number | null;
  /** Everything the terminal showed: stdout and stderr together, with the pty's CR LF. */
  screen: string;
}

/** Keys typed once the screen shows `when`, each at most once and in order. */
export interface Keystrokes {
  when: string | RegExp;
  keys: string;
}

/** A run on a pseudo-terminal the test types into while it runs. */
export interface TerminalRun {
  /** What the terminal has shown so far. */
  screen(): string;
  /** Types keys (`\x03` is Ctrl-C). */
  type(keys: string): void;
  done: Promise<PtyResult>;
}

/**
 * Starts `sms-send ARGS` on a pseudo-terminal of 100 columns unless `columns` says (script's own
 * has none, and the spinner needs a width); `type` lists keys to press once the screen shows what
 * each waits for.
 */
export function startOnTerminal(
  args: string[],
  options: {
    cwd: string;
    env?: Record<string, string | undefined>;
    type?: Keystrokes[];
    /** stderr to this file, not the terminal (`2> err.log` typed at a shell). */
    stderrTo?: string;
    columns?: number;
  },
): TerminalRun {
  const command = [
    `stty cols ${options.columns ?? 100} rows 30 &&`,
    'exec',
    shellWord(process.execPath),
    shellWord(BIN),
    ...args.map(shellWord),
    ...(options.stderrTo === undefined ? [] : [`2>${shellWord(options.stderrTo)}`]),
  ].join(' ');
  const child = spawn('script', ['-qec', command, '/dev/null'], {
    cwd: options.cwd,
    // A terminal that takes colour; CI=true (cleanEnv's) would make ora draw no spinner. Campaign
    // state goes to the test's own folder (the suite's SMS_SEND_STATE_DIR unless the test gives one).
    env: cleanEnv({
      CI: undefined,
      NO_COLOR: undefined,
      TERM: 'xterm-256color',
      SMS_SEND_STATE_DIR: process.env.SMS_SEND_STATE_DIR,
      ...options.env,
    }),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let screen = '';
  const pending = [...(options.type ?? [])];
  const press = () => {
    const next = pending[0];
    if (!next) return;
    const seen =
      typeof next.when === 'string' ? screen.includes(next.when) : next.when.test(screen);
    if (!seen) return;
    pending.shift();
    child.stdin.write(next.keys);
    press();
  };
  child.stdout.on('data', (chunk: Buffer) => {
    screen += chunk.toString();
    press();
  });
  child.stderr.on('data', (chunk: Buffer) => (screen += chunk.toString()));
  const done = new Promise<PtyResult>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      child.stdin.destroy();
      resolve({ code, screen });
    });
  });
  return { screen: () => screen, type: (keys) => child.stdin.write(keys), done };
}

/** Runs `sms-send ARGS` on a pseudo-terminal to its end (see startOnTerminal). */
export function onTerminal(
  args: string[],
  options: Parameters<typeof startOnTerminal>[1],
): Promise<PtyResult> {
  return startOnTerminal(args, options).done;
}
