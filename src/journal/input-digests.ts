// The inputs' digests, remembered in the state directory by each file's identity and times, so a
// resume of a large campaign does not read its whole input again (docs/campaign-state.md#state-directory).
import type { BigIntStats } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { makeFolders } from '../shared/disk.js';
import { replaceFile } from '../shared/files.js';
import { hashFile } from './identity.js';

/** A file changed this soon before it was hashed may change again within the same clock tick. */
const SETTLED_MS = 2000;
/** Files remembered; the longest unhashed go first. */
const MAX_FILES = 64;
const FILE_NAME = 'input-digests.json';

interface Remembered {
  /** The file's device, inode, size and change times when it was hashed, as text. */
  seen: string;
  sha256: string;
  bytes: number;
  hashedAt: number;
}

type Digest = { sha256: string; bytes: number };

/**
 * An input's digest: remembered when the file is the one hashed before (same device, inode, size,
 * modification and status-change times, to the nanosecond), else read and hashed. The status
 * change time is the kernel's to set: no tool can write a file and put it back.
 */
export class InputDigests {
  private changed = false;

  private constructor(
    private readonly path: string | undefined,
    private readonly files: Map<string, Remembered>,
    private readonly now: () => number,
  ) {}

  /** The digests remembered in `stateDir` (none when it has none, or its file does not parse). */
  static async open(stateDir: string | undefined, now = Date.now): Promise<InputDigests> {
    const path = stateDir === undefined ? undefined : join(stateDir, FILE_NAME);
    const files = new Map<string, Remembered>();
    const text =
      path === undefined ? undefined : await readFile(path, 'utf8').catch(() => undefined);
    try {
      const parsed =
        text === undefined ? {} : (JSON.parse(text) as { v?: number; files?: unknown });
      if (parsed.v === 1 && typeof parsed.files === 'object' && parsed.files !== null) {
        for (const [file, entry] of Object.entries(parsed.files)) {
          if (isRemembered(entry)) files.set(file, entry);
        }
      }
    } catch {
      // A file that does not parse is forgotten: every input is hashed again.
    }
    return new InputDigests(path, files, now);
  }

  async digest(file: string): Promise<Digest> {
    const key = resolve(file);
    const before = await stat(file, { bigint: true });
    const known = this.files.get(key);
    if (known && known.seen === seenOf(before)) return { sha256: known.sha256, bytes: known.bytes };
    const hashedAt = this.now();
    const digest = await hashFile(file);
    const after = await stat(file, { bigint: true });
    const changedAt = Math.max(Number(after.mtimeMs), Number(after.ctimeMs));
    // Remembered only for a file that did not change while it was read, nor just before.
    if (seenOf(after) === seenOf(before) && hashedAt - changedAt >= SETTLED_MS) {
      this.files.set(key, { seen: seenOf(after), ...digest, hashedAt });
      this.changed = true;
    }
    return digest;
  }

  /** Writes what was learnt, whole; a state directory that refuses is no loss, nor is a crash. */
  async save(): Promise<void> {
    if (!this.changed || this.path === undefined) return;
    const kept = [...this.files].sort((a, b) => b[1].hashedAt - a[1].hashedAt).slice(0, MAX_FILES);
    try {
      await makeFolders(join(this.path, '..'));
      const text = JSON.stringify({ v: 1, files: Object.fromEntries(kept) });
      await replaceFile(this.path, text, { durable: false });
    } catch {
      // Only a later run's speed depends on it.
    }
  }
}

function seenOf(s: BigIntStats): string {
  return `${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`;
}

function isRemembered(value: unknown): value is Remembered {
  const entry = value as Partial<Remembered> | null;
  return (
    typeof entry === 'object' &&
    entry !== null &&
    typeof entry.seen === 'string' &&
    typeof entry.sha256 === 'string' &&
    typeof entry.bytes === 'number' &&
    typeof entry.hashedAt === 'number'
  );
}
