// The preloaded library that makes real system calls fail (test/fixtures/fault/fault.c), built
// by the tests themselves with the machine's C compiler, once per source text: sms-send then meets
// the errors, codes and errnos the system and its Node line really give.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, renameSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const SOURCE = fileURLToPath(new URL('../fixtures/fault/fault.c', import.meta.url));

/** The built library's path; a machine without a C compiler fails the test that needs it, saying so. */
export function faultLibrary(): string {
  const key = createHash('sha256').update(readFileSync(SOURCE)).digest('hex').slice(0, 16);
  const built = join(tmpdir(), `sms-send-fault-${key}.so`);
  if (existsSync(built)) return built;
  const aside = `${built}.${process.pid}`;
  try {
    execFileSync('cc', ['-shared', '-fPIC', '-O2', '-o', aside, SOURCE, '-ldl', '-lpthread'], {
      stdio: 'pipe',
    });
  } catch (error) {
    throw new Error(
      `the disk-fault library could not be built (a C compiler, cc, is needed): ${String(error)}`,
    );
  }
  renameSync(aside, built);
  return built;
}

/** Which operations fail, how, under which folder (see fault.c). */
export interface RealFault {
  path: string;
  ops: ('write' | 'sync' | 'rename' | 'link' | 'mkdir' | 'open')[];
  errno: number;
  /** Operations of those kinds that pass first. */
  after?: number;
  /** How many fail; every one from then on when not given. */
  times?: number;
  /** A failed sync loses what it covered: at once, or when the process exits. */
  drop?: 'sync' | 'exit';
}

/** The environment that makes a spawned sms-send meet `fault`. */
export function faultEnv(fault: RealFault): Record<string, string> {
  return {
    LD_PRELOAD: faultLibrary(),
    SMS_FAULT_PATH: fault.path,
    SMS_FAULT_OPS: fault.ops.join(','),
    SMS_FAULT_ERRNO: String(fault.errno),
    SMS_FAULT_AFTER: String(fault.after ?? 0),
    SMS_FAULT_TIMES: String(fault.times ?? 0),
    ...(fault.drop ? { SMS_FAULT_DROP: fault.drop } : {}),
  };
}

/** errno numbers on Linux. */
export const ERRNO = { EIO: 5, ENOSPC: 28, EROFS: 30, EDQUOT: 122 } as const;
