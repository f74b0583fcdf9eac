// The keys that sign DeliveryReportUrls in the state directory: `<state dir>/dlr-secret`, made on
// first use, readable by its owner only; retired ones beside it.
import { createSecretKey, type KeyObject } from 'node:crypto';
import { readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { linkFile, syncFolder } from '../../shared/disk.js';
import { describeSystemError, diskAdvice, UsageError } from '../../shared/errors.js';
import { asideOf, listIfExists, writeNewFile } from '../../shared/files.js';
import { KEY_BYTES, newKeyBytes } from '../dlr-keys.js';
import type { DlrKeys } from '../store.js';
import { ensureStateDir } from './campaigns.js';

export const SECRET_FILE = 'dlr-secret';

/** The current secret's path. Retired ones sit beside it as `dlr-secret.<anything>`. */
export function secretPath(stateDir: string): string {
  return join(stateDir, SECRET_FILE);
}

async function readSecret(path: string): Promise<KeyObject | undefined> {
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  if (bytes.length !== KEY_BYTES) {
    throw new UsageError(
      `${path} is not a delivery-report secret (${KEY_BYTES} bytes); move it away and a new one is made`,
      'state-corrupt',
    );
  }
  return createSecretKey(bytes);
}

/**
 * The state directory's secret, made when there is none: 32 random bytes written to a file of
 * its own (mode 0600), synced, and hard-linked into place, so a reader never sees half a secret
 * and two runs making one at the same moment end with the same. Its name is synced in the state
 * directory before it signs anything: a secret lost in a power cut would be made anew, and every
 * delivery report signed with the old one refused.
 */
async function loadDlrSecret(stateDir: string): Promise<KeyObject> {
  const path = secretPath(stateDir);
  const existing = await readSecret(path);
  if (existing) return existing;
  await ensureStateDir(stateDir);
  try {
    await makeSecret(stateDir, path);
  } catch (error) {
    throw new UsageError(
      `cannot make the delivery-report secret ${path}: ${describeSystemError(error)}; nothing was ` +
        `sent. ${diskAdvice(error, 'the state directory')}`,
      'state-unwritable',
    );
  }
  const made = await readSecret(path);
  if (!made) throw new Error(`${path} vanished as it was made`);
  return made;
}

async function makeSecret(stateDir: string, path: string): Promise<void> {
  const aside = asideOf(path);
  await writeNewFile(aside, newKeyBytes(), { durable: true });
  try {
    await linkFile(aside, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    await rm(aside, { force: true });
  }
  await syncFolder(stateDir);
}

/** The current secret's version: a first send, or a rotation, changes it. */
async function dlrSecretsVersion(stateDir: string): Promise<string> {
  try {
    const info = await stat(secretPath(stateDir));
    return `${info.ino}:${info.mtimeMs}:${info.size}`;
  } catch {
    return 'none';
  }
}

/**
 * Every secret a delivery report may have been signed with: the current one first, then the
 * retired ones (`dlr-secret.<anything>`, kept after a rotation so campaigns sent before it can
 * still be verified). Empty when none was ever made: nothing was signed here.
 */
async function dlrSecrets(stateDir: string): Promise<KeyObject[]> {
  const keys: KeyObject[] = [];
  const current = await readSecret(secretPath(stateDir));
  if (current) keys.push(current);
  for (const name of (await listIfExists(stateDir)).sort()) {
    if (!name.startsWith(`${SECRET_FILE}.`)) continue;
    const key = await readSecret(join(stateDir, name)).catch(() => undefined);
    if (key) keys.push(key);
  }
  return keys;
}

/** The state directory's keys and their version; `make`: the current key made first when none is. */
export async function folderDlrKeys(stateDir: string, make = false): Promise<DlrKeys> {
  if (make) await loadDlrSecret(stateDir);
  const version = await dlrSecretsVersion(stateDir);
  return { keys: await dlrSecrets(stateDir), version };
}
