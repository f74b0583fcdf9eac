// The bench's children: the simulator in a process of its own, and a measured run of sms-send or a loop.
// Each measured child is preloaded with bench/probe.js, which writes its CPU and peak RSS at exit;
// a child the bench kills is read from /proc instead (Linux), just before the kill.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, open, readFile, rm, rmdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
export const bin = join(root, 'bin', 'sms-send.js');
export const probe = join(root, 'bench', 'probe.js');
// One folder per bench process, so two benches can run at once (bench/.out is git-ignored).
export const out = join(root, 'bench', '.out', String(process.pid));
export const env = {
  ...process.env,
  SMS_SEND_USERNAME: 'bench',
  SMS_SEND_PASSWORD: 'bench-pw',
  NO_COLOR: '1',
};

/** The argv of a quiet, unprompted send of `input` to `url`, reporting to `report`. */
export function sendArgv(input, url, concurrency, report) {
  return [
    bin,
    input,
    '--endpoint',
    url,
    '--yes',
    '--quiet',
    '--concurrency',
    String(concurrency),
    '--report',
    report,
  ];
}

/**
 * `sms-send simulate` in its own process (with `extraArgs`, e.g. `--transaction-ids random`), the
 * probe reporting its first request on demand.
 */
export function startSimulator(extraArgs = []) {
  const child = spawn(
    process.execPath,
    ['--import', probe, bin, 'simulate', '--port', '0', '--no-color', ...extraArgs],
    { stdio: ['ignore', 'ignore', 'pipe'], env: { ...env, BENCH_FIRST_REQUEST: '1' } },
  );
  let seen = '';
  const waiters = [];
  child.stderr.on('data', (chunk) => {
    seen += chunk;
    for (const waiter of [...waiters]) waiter();
  });
  /** Resolves with the first match of `pattern` in stderr after `from`. */
  const waitFor = (pattern, from) =>
    new Promise((resolve) => {
      const check = () => {
        const match = pattern.exec(seen.slice(from));
        if (!match) return;
        waiters.splice(waiters.indexOf(check), 1);
        resolve(match);
      };
      waiters.push(check);
      check();
    });
  return new Promise((resolve, reject) => {
    child.on('exit', () => reject(new Error(`simulator exited: ${seen}`)));
    void waitFor(/listening on (http:\/\/\S+)/, 0).then((match) =>
      resolve({
        url: match[1],
        /** Arms the probe; the promise it returns resolves with the epoch ms of the next request. */
        async nextRequest() {
          const from = seen.length;
          child.kill('SIGUSR2');
          await waitFor(/bench-armed/, from);
          return waitFor(/bench-first-request (\d+)/, from).then((m) => Number(m[1]));
        },
        stop: () => child.kill('SIGINT'),
      }),
    );
  });
}

/**
 * A memory cgroup the bench puts a child in, as a container or a small VPS limits a process:
 * cgroup v2 where it is the hierarchy, else v1's memory controller (Linux, root). The child
 * joins it before it execs node, so V8 sizes its heap from the limit from its first instruction.
 */
export async function memoryCage(label, limitMb) {
  const v2 = existsSync('/sys/fs/cgroup/cgroup.controllers');
  const base = v2 ? '/sys/fs/cgroup' : '/sys/fs/cgroup/memory';
  const dir = join(base, `sms-send-bench-${process.pid}-${label}`);
  const bytes = String(limitMb * 1024 * 1024);
  try {
    await mkdir(dir);
    if (v2) {
      await writeFile(join(dir, 'memory.max'), bytes);
      await writeFile(join(dir, 'memory.swap.max'), '0').catch(() => undefined);
    } else {
      await writeFile(join(dir, 'memory.limit_in_bytes'), bytes);
      await writeFile(join(dir, 'memory.memsw.limit_in_bytes'), bytes).catch(() => undefined);
    }
  } catch (error) {
    await rmdir(dir).catch(() => undefined);
    throw new Error(
      `--memory-limit needs a memory cgroup (Linux, as root): ${error.message}. Run the bench ` +
        'without --memory-limit, or as root.',
    );
  }
  const events = join(dir, v2 ? 'memory.events' : 'memory.oom_control');
  return {
    /** `sh` joins the cgroup, then execs the command in its place (the same pid). */
    wrap: (file, args) => [
      '/bin/sh',
      ['-c', `echo $$ > ${join(dir, 'cgroup.procs')} && exec "$@"`, 'sh', file, ...args],
    ],
    /** Processes the kernel killed in it for want of memory. */
    async oomKills() {
      const text = await readFile(events, 'utf8').catch(() => '');
      return Number(/oom_kill (\d+)/.exec(text)?.[1] ?? 0);
    },
    remove: () => rmdir(dir).catch(() => undefined),
  };
}

/**
 * Runs `<node> --import probe <argv>` and returns its wall time, CPU and peak RSS. Options:
 * `node` (another Node.js binary), `nodeArgs` (its options), `stateDir` (kept; else one of its
 * own, removed after), `exitCodes` (accepted besides 0), `mayFail` (a run that fails or dies is
 * a result: its exit code or signal, and its CPU and peak RSS as last read from /proc),
 * `killWhen` (polled; when it resolves true the child is read from /proc and killed, SIGKILL),
 * `memoryLimitMb` (the child runs in a memory cgroup of that size; `oomKilled` says whether
 * the kernel killed it for memory), and `env` (variables of its own).
 */
export async function measure(label, argv, options = {}) {
  const usageFile = join(out, `${label}.usage.json`);
  const stateDir = options.stateDir ?? join(out, `state-${label}`);
  const cage = options.memoryLimitMb ? await memoryCage(label, options.memoryLimitMb) : undefined;
  try {
    const run = await measureIn(label, argv, options, { usageFile, stateDir, cage });
    const oomKilled = cage ? (await cage.oomKills()) > 0 : false;
    return cage ? { ...run, oomKilled } : run;
  } finally {
    await cage?.remove();
  }
}

async function measureIn(label, argv, options, { usageFile, stateDir, cage }) {
  const started = performance.now();
  const startedAt = Date.now();
  const command = [
    options.node ?? process.execPath,
    [...(options.nodeArgs ?? []), '--import', probe, ...argv],
  ];
  const [file, args] = cage ? cage.wrap(...command) : command;
  const child = spawn(file, args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...env, ...options.env, SMS_SEND_STATE_DIR: stateDir, BENCH_USAGE_FILE: usageFile },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  let done = false;
  const exited = new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      done = true;
      resolve({ code, signal });
    });
  });
  // Read every 200 ms, for a child that is killed or dies before the probe can write its usage.
  let last = { cpuUs: 0, rssMb: 0 };
  let killed = false;
  while (!done) {
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 200))]);
    if (done) break;
    last = procUsage(child.pid) ?? last;
    if (options.killWhen && (await options.killWhen())) {
      last = procUsage(child.pid) ?? last;
      child.kill('SIGKILL');
      killed = true;
      break;
    }
  }
  const { code, signal } = await exited;
  const ms = performance.now() - started;
  if (!options.stateDir) await rm(stateDir, { recursive: true, force: true });
  if (killed) return { ms, startedAt, stdout, ...last, killed: true };
  const ok = code === 0 || (options.exitCodes ?? []).includes(code);
  // A child the kernel killed for memory is a result of a memory-limited run, never a crash.
  const mayFail = options.mayFail || (cage !== undefined && signal === 'SIGKILL');
  if (!ok && !mayFail) throw new Error(`${label} exited ${code ?? signal}: ${stderr}`);
  if (!ok) return { ms, startedAt, stdout, stderr, code: code ?? signal, ...last, failed: true };
  const usage = JSON.parse(await readFile(usageFile, 'utf8'));
  return {
    ms,
    startedAt,
    stdout,
    stderr,
    code,
    cpuUs: usage.userUs + usage.systemUs,
    rssMb: usage.maxRssKb / 1024,
  };
}

/** CPU (user + system, µs) and peak RSS (MB) of a live process, from /proc (Linux); or undefined. */
function procUsage(pid) {
  let stat;
  let status;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    status = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return undefined;
  }
  // Fields after the command's closing parenthesis: utime and stime are the 12th and 13th.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  const hwm = /VmHWM:\s+(\d+)/.exec(status);
  if (!hwm) return undefined;
  const hwmKb = Number(hwm[1]);
  // Linux reports CPU time in clock ticks of 1/100 s on every common architecture.
  return { cpuUs: ticks * 10_000, rssMb: hwmKb / 1024 };
}

/**
 * Other Node.js lines to run the memory rows on: `--node=PATH` arguments (repeatable, or comma
 * separated) and BENCH_NODES (separated by ':'), each a node binary or the folder that holds it.
 * Returns those found, with their versions, and a reason for each one that is not.
 */
export function otherNodes(args) {
  const given = [
    ...args.filter((a) => a.startsWith('--node=')).flatMap((a) => a.slice(7).split(',')),
    ...(process.env.BENCH_NODES ?? '').split(':'),
  ].filter((path) => path !== '');
  const nodes = [];
  const skipped = [];
  for (const path of given) {
    const candidates = [path, join(path, 'node')];
    const found = candidates
      .map((file) => ({ file, run: spawnSync(file, ['--version'], { encoding: 'utf8' }) }))
      .find(({ run }) => run.status === 0);
    if (!found) skipped.push(`${path}: no node binary there`);
    else if (found.run.stdout.trim() === process.version) {
      skipped.push(`${path}: ${process.version}, the Node.js this bench runs on`);
    } else nodes.push({ path: found.file, version: found.run.stdout.trim() });
  }
  return { nodes, skipped };
}

/** A campaign of `count` rows, each to a distinct valid Norwegian mobile number (up to 10,000,000). */
export async function writeCampaign(file, count) {
  const handle = await open(file, 'w');
  try {
    await handle.write('to,name,text\n');
    let chunks = [];
    for (let i = 0; i < count; i++) {
      chunks.push(
        `${4790000000 + (i % 10_000_000)},N${i},"Hello {{name}}, this is message ${i}"\n`,
      );
      if (chunks.length >= 10_000) {
        await handle.write(chunks.join(''));
        chunks = [];
      }
    }
    await handle.write(chunks.join(''));
  } finally {
    await handle.close();
  }
}
