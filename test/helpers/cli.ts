// Spawns the built binary the way a user runs it, and collects exit code, stdout and stderr.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const BIN = fileURLToPath(new URL('../../bin/sms-send.js', import.meta.url));

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  cwd?: string;
  env?: Record<string, string | undefined>;
  stdin?: string;
  /**
   * The host name the run sees: it runs in a UTS namespace of its own (`unshare --uts`, as root),
   * as a pod of a fleet does. Where that cannot be made, the run fails and says so.
   */
  host?: string;
}

/**
 * The environment of a clean non-interactive shell: no inherited credentials or colour forcing,
 * and the test's own state directory (test/setup/state-dir.ts), never the user's.
 */
export function cleanEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', CI: 'true' };
  for (const key of Object.keys(env)) if (key.startsWith('SMS_SEND_')) delete env[key];
  delete env.FORCE_COLOR;
  return { ...env, SMS_SEND_STATE_DIR: process.env.SMS_SEND_STATE_DIR, ...extra };
}

export function startCli(args: string[], options: CliOptions = {}): ChildProcess {
  const argv = [process.execPath, BIN, ...args];
  const [file, ...rest] =
    options.host === undefined
      ? argv
      : ['unshare', '--uts', '--', 'sh', '-c', 'hostname "$0" && exec "$@"', options.host, ...argv];
  const child = spawn(file!, rest, {
    cwd: options.cwd,
    env: cleanEnv(options.env),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  child.stdin?.end(options.stdin ?? '');
  return child;
}

export function runCli(args: string[], options: CliOptions = {}): Promise<CliResult> {
  const child = startCli(args, options);
  return collect(child);
}

export function collect(child: ChildProcess): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

/** Kills the children a test left running (a test that failed half-way), and forgets them. */
export function killLeft(children: ChildProcess[]): void {
  for (const child of children.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
}
