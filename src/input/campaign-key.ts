// A short fingerprint of a campaign's input bytes: the stem of generated MessageIds and the journal's identity.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';

/** Hashes the files in order; the same bytes always give the same 10-character key. */
export async function campaignKey(files: readonly string[]): Promise<string> {
  const hash = createHash('sha256');
  for (const file of files) {
    hash.update(`${files.length}\0`);
    for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
    hash.update('\0');
  }
  return hash.digest('hex').slice(0, 10);
}
