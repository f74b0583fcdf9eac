// Runs a command line in the test's own process, through the same main() the binary runs, and
// collects what it printed: for tests of what sms-send does with records, settings and state, where
// a process of its own (signals, a terminal, exit timing, the built files) shows nothing more.
import { main } from '../../src/cli/main.js';
import { BIN, cleanEnv, runCli, type CliOptions, type CliResult } from './cli.js';

type Write = typeof process.stdout.write;

let queue: Promise<unknown> = Promise.resolve();

/**
 * Like runCli, without the process: the environment, the working folder and both output streams
 * are the command's for its duration. Runs one at a time, since they share the process, and only
 * from tests that are not concurrent (another test's hooks would change the environment under it).
 * A run that reads standard input spawns, as a pipe is what it is about.
 */
export function runInProcess(args: string[], options: CliOptions = {}): Promise<CliResult> {
  if (options.stdin !== undefined) return runCli(args, options);
  const run = queue.then(() => inProcess(args, options));
  queue = run.catch(() => undefined);
  return run;
}

async function inProcess(args: string[], options: CliOptions): Promise<CliResult> {
  const saved = { env: { ...process.env }, cwd: process.cwd(), exitCode: process.exitCode };
  const argv = process.argv;
  // The resume command a stop prints is the command line as typed, read from process.argv.
  process.argv = [process.execPath, BIN, ...args];
  const out = { stdout: '', stderr: '' };
  // Kept as they are (not bound), to be put back as they were.
  const writes = {
    stdout: Reflect.get<NodeJS.WriteStream, 'write'>(process.stdout, 'write'),
    stderr: Reflect.get<NodeJS.WriteStream, 'write'>(process.stderr, 'write'),
  };
  process.stdout.write = capture(out, 'stdout');
  process.stderr.write = capture(out, 'stderr');
  const listeners = signalListeners();
  const env = cleanEnv(options.env);
  replaceEnv(env);
  if (options.cwd) process.chdir(options.cwd);
  try {
    const code = await main(process.argv);
    // A concurrent test's hooks set SMS_SEND_STATE_DIR for themselves: this run may have read theirs.
    if (process.env.SMS_SEND_STATE_DIR !== env.SMS_SEND_STATE_DIR) {
      throw new Error('process.env changed during an in-process run: is the test concurrent?');
    }
    // A listener left behind would outlive the run (and, past ten, make Node print a warning).
    if (signalListeners() !== listeners) {
      throw new Error(
        `the run left signal listeners: ${listeners} before, ${signalListeners()} after`,
      );
    }
    return { code, signal: null, ...out };
  } finally {
    process.stdout.write = writes.stdout;
    process.stderr.write = writes.stderr;
    replaceEnv(saved.env);
    // Only where it was changed: a worker thread (a mutation run's) may not change it at all.
    if (options.cwd) process.chdir(saved.cwd);
    process.argv = argv;
    process.exitCode = saved.exitCode;
  }
}

function capture(out: { stdout: string; stderr: string }, stream: 'stdout' | 'stderr'): Write {
  const write = (chunk: string | Uint8Array, ...rest: unknown[]): boolean => {
    out[stream] += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    const callback = rest.find((arg): arg is () => void => typeof arg === 'function');
    if (callback) queueMicrotask(callback);
    return true;
  };
  return write;
}

/** Changes the real environment, not only the object: os.homedir() and child processes read it. */
function replaceEnv(env: NodeJS.ProcessEnv): void {
  for (const key of Object.keys(process.env)) if (!(key in env)) delete process.env[key];
  for (const [key, value] of Object.entries(env)) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
}

function signalListeners(): number {
  return process.listenerCount('SIGINT') + process.listenerCount('SIGTERM');
}
