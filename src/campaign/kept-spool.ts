// The spool an unfinished campaign keeps for its next run: a resume that would build exactly the
// same messages reads it instead of validating every record again (docs/campaign-state.md#the-kept-spool).
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { open, readFile, rename, rm, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { syncFolder } from '../journal/durable.js';
import { stampAside, type CampaignPaths } from '../journal/state.js';
import { exists } from '../shared/files.js';
import { RowBits } from '../shared/row-bits.js';
import type { Plan } from '../validate/plan.js';

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
   * reading the spool, which at 10,000,000 records is 2 GB (docs/campaign-state.md#the-kept-spool).
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
    JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
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
export async function keptSpool(paths: CampaignPaths, key: string): Promise<KeptSpool | undefined> {
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
 * written whole (a new file, then a rename), so a stamp never names a spool the disk lacks.
 */
export async function stampSpool(
  paths: CampaignPaths,
  key: string,
  { plan, messages }: KeptSpool,
): Promise<void> {
  const handle = await open(paths.spool, 'r+');
  let bytes: number;
  try {
    await handle.sync();
    bytes = (await handle.stat()).size;
  } finally {
    await handle.close();
  }
  const stamp: SpoolStamp = { v: 2, key, bytes, plan, messages: messages.toBase64() };
  // One writer at a time (the campaign's lock), so one name for the stamp being written.
  const aside = stampAside(paths);
  const out = await open(aside, 'w', 0o600);
  try {
    await out.writeFile(JSON.stringify(stamp));
    await out.sync();
  } finally {
    await out.close();
  }
  await rename(aside, paths.spoolStamp);
}

/**
 * The spool is about to be written again, or is done with: it is no longer complete. The
 * removal is synced in the folder, so a crash cannot bring the stamp back over a new spool.
 */
export async function unstamp(paths: CampaignPaths): Promise<void> {
  await rm(stampAside(paths), { force: true });
  if (!(await exists(paths.spoolStamp))) return;
  await rm(paths.spoolStamp, { force: true });
  await syncFolder(paths.dir);
}
