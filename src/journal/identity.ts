// Campaign identity: what is sent and how, never where its report goes. The state folder and MessageIds derive from it.
import { createHash } from 'node:crypto';
import { open } from 'node:fs/promises';
import { basename, extname } from 'node:path';
import { UsageError } from '../shared/errors.js';

/** Everything besides the input bytes that shapes the messages of a campaign. */
export interface CampaignShape {
  /**
   * "simulator" or "gateway": trying a campaign on the built-in simulator does not make it sent,
   * but every real endpoint counts as one, so a changed URL can never send a campaign twice.
   */
  target: 'simulator' | 'gateway';
  mapping: { to?: string; text?: string };
  /** The text template's source (`--text`, `--text-file`), if any. */
  template?: string;
  inputFormat?: string;
  delimiter?: string;
  country?: string;
  /** Message defaults as configured (before durations are made absolute). */
  defaults: object;
  /**
   * --gsm-normalize changes the bytes sent, so a normalised run is another campaign. Set only
   * when on (true): a campaign without it keeps the ID it had before the flag existed.
   */
  gsmNormalize?: true;
  /** Campaigns whose recipients are left out (--skip-sent-by), their IDs sorted; set when given. */
  skipSentBy?: string[];
}

export interface CampaignIdentity {
  /** The campaign's ID and state folder name: 16 hex characters, or the expanded --campaign name. */
  id: string;
  /** Hash of the inputs and the shape: the same content sent the same way. */
  contentHash: string;
  /** The stem of generated MessageIds (10 characters). */
  stem: string;
  /** True when the ID came from --campaign rather than from the content. */
  named: boolean;
}

/**
 * The hash of an input's bytes, read in pieces into one buffer. A read stream made a new 64 KiB
 * buffer per piece, faster than the young generation let them go, and glibc kept what they left
 * in the C heap as the run's memory until its end (docs/benchmark.md#measured-choices-in-the-code).
 */
export async function hashFile(path: string): Promise<{ sha256: string; bytes: number }> {
  const hash = createHash('sha256');
  const handle = await open(path, 'r');
  const buffer = Buffer.allocUnsafe(HASH_READ_BYTES);
  let bytes = 0;
  try {
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
      if (bytesRead === 0) break;
      // update() takes the bytes in at once, so the buffer can be read into again.
      hash.update(buffer.subarray(0, bytesRead));
      bytes += bytesRead;
    }
  } finally {
    await handle.close();
  }
  return { sha256: hash.digest('hex'), bytes };
}

const HASH_READ_BYTES = 256 * 1024;

/**
 * The content hash covers each input's bytes in order (several files are one campaign, numbered
 * across files) and a canonical form of the shape, so neither a file's path nor the report's name
 * nor the working folder changes it.
 */
export function contentHash(
  inputs: readonly { sha256: string; bytes: number }[],
  shape: CampaignShape,
): string {
  const hash = createHash('sha256');
  hash.update('sms-send campaign v1\0');
  for (const input of inputs) hash.update(`${input.bytes}:${input.sha256}\0`);
  hash.update(canonicalJson(shape));
  return hash.digest('hex');
}

/** Identity from content, or from an explicit name (already expanded). */
export function campaignIdentity(hash: string, name?: string): CampaignIdentity {
  if (name === undefined) {
    return { id: hash.slice(0, 16), contentHash: hash, stem: hash.slice(0, 10), named: false };
  }
  const stem = createHash('sha256').update(`name\0${name}`).digest('hex').slice(0, 10);
  return { id: name, contentHash: hash, stem, named: true };
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/**
 * `--campaign NAME` with {date}, {time} (local, as in report paths) and {name} (the first input's
 * basename) filled. The result names a folder, so it is kept to a safe alphabet.
 */
export function expandCampaignName(template: string, firstInput: string, now: Date): string {
  const name = expandPlaceholders(template, firstInput, now).replace(/[^A-Za-z0-9._-]/g, '_');
  if (!NAME.test(name)) {
    throw new UsageError(
      `--campaign ${template}: must give 1-64 letters, digits, ".", "_" or "-", starting with a letter or digit`,
      'bad-campaign',
    );
  }
  return name;
}

/** Fills {date}, {time} and {name}: shared by report paths and campaign names. */
export function expandPlaceholders(template: string, firstInput: string, now: Date): string {
  const name = firstInput === '-' ? 'stdin' : basename(firstInput, extname(firstInput));
  const pad = (n: number) => String(n).padStart(2, '0');
  const date = `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
  const time = `${pad(now.getHours())}${pad(now.getMinutes())}${pad(now.getSeconds())}`;
  return template.replaceAll('{date}', date).replaceAll('{time}', time).replaceAll('{name}', name);
}

/** JSON with object keys sorted and undefined dropped, so equal shapes hash equally. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}
