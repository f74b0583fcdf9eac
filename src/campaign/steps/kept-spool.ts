// The spool an unfinished campaign keeps for its next run: a resume that would build exactly the
// same messages reads it instead of validating every record again (docs/campaign-state.md#the-kept-spool).
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { readFile, rm, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { LocalFiles } from '../../journal/cache.js';
import { DiskFile, syncFolder } from '../../shared/disk.js';
import { exists, replaceFile } from '../../shared/files.js';
import { RowBits } from './row-bits.js';
import type { Plan } from '../../validate/plan.js';

/** What the stamp beside a complete spool holds; a stamp of another version is not read. */
interface SpoolStamp {
  v: 2;
  /** What the messages were built from (see keyOf): another key, another spool. */
  key: string;
  /** The spool's size when it was complete. */
  bytes: number;
  plan: Plan;
  /**
   * The rows of its messages (RowBits, in base64): a resume counts those left to send without
   * reading the spool, which grows with every record (docs/campaign-state.md#the-kept-spool).
   */
  messages: string;
}

/** A complete spool kept for this run: its plan, and the rows it holds messages for. */
export interface KeptSpool {
  plan: Plan;
  messages: RowBits;
}

/** sms-send's version (its message format) and the number rules' (a reinstall may update them). */
const versions = {
  smsSend: (
    JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as {
      version: string;
    }
  ).version,
  numberRules: (
    createRequire(import.meta.url)('libphonenumber-js/package.json') as { version: string }
  ).version,
};

/**
 * The key of everything the validation pass builds messages from, with the versions of the code
 * that builds them. Two runs with the same key spool the same lines.
 */
export function keyOf(parts: object): string {
  return createHash('sha256')
    .update(JSON.stringify({ versions, ...parts }))
    .digest('hex');
}

/** The complete spool kept under this key, or undefined when there is none. */
export async function keptSpool(paths: LocalFiles, key: string): Promise<KeptSpool | undefined> {
  let stamp: SpoolStamp;
  try {
    stamp = JSON.parse(await readFile(paths.spoolStamp, 'utf8')) as SpoolStamp;
  } catch {
    return undefined;
  }
  if (stamp.v !== 2 || stamp.key !== key || typeof stamp.messages !== 'string') return undefined;
  const size = await stat(paths.spool).then(
    (s) => s.size,
    () => -1,
  );
  if (size !== stamp.bytes) return undefined;
  return { plan: stamp.plan, messages: RowBits.fromBase64(stamp.messages) };
}

/**
 * Marks the spool complete, for a later run: its bytes are synced first, then the stamp is
 * written whole, so a stamp never names a spool the disk lacks. A stamp that cannot be written
 * is no loss: the next run validates again.
 */
export async function stampSpool(
  paths: LocalFiles,
  key: string,
  { plan, messages }: KeptSpool,
): Promise<void> {
  try {
    const spool = await DiskFile.open(paths.spool, 'r+');
    let bytes: number;
    try {
      await spool.sync();
      bytes = spool.size();
    } finally {
      await spool.close();
    }
    const stamp: SpoolStamp = { v: 2, key, bytes, plan, messages: messages.toBase64() };
    // Lost in a crash, it costs the next run a validation pass: not worth a sync.
    await replaceFile(paths.spoolStamp, JSON.stringify(stamp), { durable: false });
  } catch {
    // Only the next run's speed depends on it.
  }
}

/**
 * The spool is about to be written again, or is done with: it is no longer complete. The
 * removal is synced in the folder, so a crash cannot bring the stamp back over a new spool.
 */
export async function unstamp(paths: LocalFiles): Promise<void> {
  if (!(await exists(paths.spoolStamp))) return;
  await rm(paths.spoolStamp, { force: true });
  await syncFolder(paths.dir);
}
