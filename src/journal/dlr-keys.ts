// The keys that sign delivery-report URLs, whatever store keeps them: 32 random bytes each.
import { createSecretKey, randomBytes, type KeyObject } from 'node:crypto';

export const KEY_BYTES = 32;

/** A new key's bytes. */
export function newKeyBytes(): Buffer {
  return randomBytes(KEY_BYTES);
}

/** A key for this process only: proofs of the right length for a dry run, or a one-off check. */
export function ephemeralKey(): KeyObject {
  return createSecretKey(newKeyBytes());
}
