// Counts repeated digests in memory that does not grow with the campaign: buckets spilled to disk.
import { closeSync, readdirSync, readSync, rmdirSync, rmSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { appendScratchSync, makeScratchFolderSync, openScratchFileSync } from '../shared/disk.js';
import { DigestSet } from './digest.js';

/** Digests are spread over this many buckets by six of their bits; equal digests share one. */
const BUCKETS = 64;
/** Digests a bucket holds in memory before they are appended to its file (16 bytes each). */
const BUCKET_DIGESTS = 1024;

/**
 * The dry run's repeats: how many digests equal an earlier one. Which one came first does not
 * matter for a count, so digests need no order: each goes to one of 64 buckets by six of its bits, a
 * bucket's digests are appended to a file of its own in `dir` when its 16 KiB buffer fills, and
 * `count()` reads the buckets back one at a time, counting the repeats in each with a DigestSet.
 * Memory is the buckets' buffers while records are read, and one bucket's digests and set while
 * counting (a 64th of the campaign's); disk is a digest per record, removed by `close()`. A
 * campaign whose digests fit the buffers never touches the disk.
 */
export class SpilledRepeats {
  private readonly buffers: Int32Array[] = [];
  private readonly fill = new Int32Array(BUCKETS);
  private readonly fds: (number | undefined)[] = [];
  private folder: string | undefined;

  /**
   * `parent` is where a folder of bucket files is made when a bucket first fills (the state
   * directory's `tmp/`); `bucketDigests` is the size of a bucket's buffer (small in tests).
   */
  constructor(
    private readonly parent: string,
    private readonly bucketDigests = BUCKET_DIGESTS,
  ) {
    for (let b = 0; b < BUCKETS; b++) this.buffers.push(new Int32Array(bucketDigests * 4));
  }

  /** Adds the digest at `at` in `digests` (four words). */
  add(digests: Int32Array, at = 0): void {
    // By the last word's top bits: the set that counts a bucket shards by the first word.
    const bucket = digests[at + 3]! >>> 26;
    const buffer = this.buffers[bucket]!;
    const n = this.fill[bucket]!;
    buffer[n * 4] = digests[at]!;
    buffer[n * 4 + 1] = digests[at + 1]!;
    buffer[n * 4 + 2] = digests[at + 2]!;
    buffer[n * 4 + 3] = digests[at + 3]!;
    this.fill[bucket] = n + 1;
    if (n + 1 === this.bucketDigests) this.spill(bucket);
  }

  /** How many digests added so far repeat an earlier one. */
  count(): number {
    let repeats = 0;
    for (let bucket = 0; bucket < BUCKETS; bucket++) {
      // A set of this bucket's digests alone: the memory of one bucket, not of the campaign.
      const set = new DigestSet();
      const countIn = (words: Int32Array): void => {
        for (let at = 0; at < words.length; at += 4) if (!set.add(words, at)) repeats++;
      };
      const fd = this.fds[bucket];
      if (fd !== undefined) readBack(fd, this.bucketDigests * 4, countIn);
      countIn(this.buffers[bucket]!.subarray(0, this.fill[bucket]! * 4));
    }
    return repeats;
  }

  /** Removes the bucket files, if any were written. */
  close(): void {
    for (const fd of this.fds) if (fd !== undefined) closeSync(fd);
    this.fds.length = 0;
    if (!this.folder) return;
    rmSync(this.folder, { recursive: true, force: true });
    this.folder = undefined;
    // The state directory's tmp/ goes too, unless another run has files there now.
    try {
      rmdirSync(this.parent);
    } catch {
      // Not empty, or already gone: either is fine.
    }
  }

  private spill(bucket: number): void {
    let fd = this.fds[bucket];
    if (fd === undefined) {
      if (!this.folder) {
        this.folder = makeScratchFolderSync(this.parent, `${PREFIX}${process.pid}-`);
        removeAbandoned(this.parent);
      }
      fd = openScratchFileSync(join(this.folder, `${bucket}.bin`));
      this.fds[bucket] = fd;
    }
    const buffer = this.buffers[bucket]!;
    const bytes = new Uint8Array(buffer.buffer, 0, this.fill[bucket]! * 16);
    appendScratchSync(fd, bytes);
    this.fill[bucket] = 0;
  }
}

/** Bucket folders are named by host and pid, so a run killed meanwhile can be told by the next. */
const PREFIX = `repeats-${hostname()}-`;

/** Removes the bucket folders of runs on this host that were killed before they removed them. */
function removeAbandoned(parent: string): void {
  for (const name of readdirSync(parent)) {
    if (!name.startsWith(PREFIX)) continue;
    const pid = Number(name.slice(PREFIX.length).split('-')[0]);
    if (!Number.isInteger(pid) || alive(pid)) continue;
    rmSync(join(parent, name), { recursive: true, force: true });
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists, but is another user's.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Reads a bucket's file from its start, `words` words at a time. */
function readBack(fd: number, words: number, each: (words: Int32Array) => void): void {
  const chunk = new Int32Array(words);
  const bytes = new Uint8Array(chunk.buffer);
  for (let position = 0; ;) {
    let got = 0;
    while (got < bytes.length) {
      const n = readSync(fd, bytes, got, bytes.length - got, position + got);
      if (n === 0) break;
      got += n;
    }
    if (got === 0) return;
    each(chunk.subarray(0, got >> 2));
    position += got;
  }
}
