// Every write, sync, creation and rename of sms-send's own files passes here: one place that says
// what each does to the disk, and one that a test can make fail at any operation, as a full,
// read-only or failing disk does (docs/campaign-state.md#when-the-disk-fails).
import {
  fstatSync,
  ftruncateSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readSync,
  writeSync,
  type Stats,
} from 'node:fs';
import {
  access,
  link,
  mkdir,
  mkdtemp,
  open,
  rename,
  stat,
  type FileHandle,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { namedSystemError, systemErrorCode } from './errors.js';

/** The operations a disk can refuse. Reads and removals are not among them. */
export type DiskOp = 'open' | 'write' | 'datasync' | 'sync' | 'rename' | 'link' | 'mkdir';

/** Why an operation fails, and for a write how many of its bytes reach the file first (a full disk tears writes). */
export interface DiskFailure {
  error: NodeJS.ErrnoException;
  written?: number;
}

/**
 * Asked before each operation (with a write's data): a failure to give it, or undefined to let it
 * happen. Tests set one to fail the Nth write or sync of a run with each errno a disk gives.
 */
export type DiskFault = (
  op: DiskOp,
  path: string,
  data?: string | Uint8Array,
) => DiskFailure | undefined;

let fault: DiskFault | undefined;

/** Sets (or, with undefined, clears) the fault every later operation is asked. */
export function injectDiskFault(next: DiskFault | undefined): void {
  fault = next;
}

function check(op: DiskOp, path: string, data?: string | Uint8Array): DiskFailure | undefined {
  return fault?.(op, path, data);
}

function refuse(op: DiskOp, path: string): void {
  const failure = check(op, path);
  if (failure) throw failure.error;
}

/**
 * A file sms-send writes, by its path: writes are synchronous (an append to the page cache takes
 * microseconds, and a send makes thousands; a round trip through the thread pool cost several
 * times that in CPU), syncs wait on the disk and are asynchronous.
 */
export class DiskFile {
  private constructor(
    readonly path: string,
    private readonly handle: FileHandle,
  ) {}

  /** Opens `path` to write (`flags` as fs.open takes them: 'w', 'wx', 'a', 'a+', 'r+'). */
  static async open(path: string, flags: string, mode = 0o600): Promise<DiskFile> {
    refuse('open', path);
    return new DiskFile(path, await open(path, flags, mode).catch(rethrowNamed));
  }

  get fd(): number {
    return this.handle.fd;
  }

  /** Writes all of `text` at the file's position. */
  write(text: string): void {
    const failure = fault && check('write', this.path, text);
    if (failure) this.tear(Buffer.from(text, 'utf8'), failure);
    let written: number;
    try {
      written = writeSync(this.handle.fd, text);
    } catch (error) {
      rethrowNamed(error);
    }
    if (written === Buffer.byteLength(text)) return;
    this.writeFrom(Buffer.from(text, 'utf8'), written);
  }

  /** Writes all of `bytes` at the file's position. */
  writeBytes(bytes: Uint8Array): void {
    const failure = fault && check('write', this.path, bytes);
    if (failure) this.tear(bytes, failure);
    this.writeFrom(bytes, 0);
  }

  private writeFrom(bytes: Uint8Array, done: number): void {
    try {
      while (done < bytes.length) {
        done += writeSync(this.handle.fd, bytes, done, bytes.length - done);
      }
    } catch (error) {
      rethrowNamed(error);
    }
  }

  /** A write that fails after its first bytes, as one on a disk that fills up does. */
  private tear(bytes: Uint8Array, failure: DiskFailure): never {
    const written = Math.min(failure.written ?? 0, bytes.length);
    if (written > 0) this.writeFrom(bytes.subarray(0, written), 0);
    throw failure.error;
  }

  /** fdatasync: the file's data (and its size) on the disk. */
  async datasync(): Promise<void> {
    refuse('datasync', this.path);
    await this.handle.datasync().catch(rethrowNamed);
  }

  /** fsync: data and every attribute. */
  async sync(): Promise<void> {
    refuse('sync', this.path);
    await this.handle.sync().catch(rethrowNamed);
  }

  size(): number {
    return fstatSync(this.handle.fd).size;
  }

  stat(): Stats {
    return fstatSync(this.handle.fd);
  }

  /** Reads into `buffer` from `position`; the bytes read. */
  read(buffer: Uint8Array, position: number): number {
    return readSync(this.handle.fd, buffer, 0, buffer.length, position);
  }

  /** Cuts the file back to `size` bytes: it frees room rather than taking it, so no fault is asked. */
  truncate(size: number): void {
    ftruncateSync(this.handle.fd, size);
  }

  chmod(mode: number): Promise<void> {
    return this.handle.chmod(mode);
  }

  close(): Promise<void> {
    return this.handle.close();
  }
}

export async function renameFile(from: string, to: string): Promise<void> {
  refuse('rename', to);
  await rename(from, to).catch(rethrowNamed);
}

/** A hard link: fails with EEXIST when `to` exists, which is what locks are made of. */
export async function linkFile(from: string, to: string): Promise<void> {
  refuse('link', to);
  await link(from, to).catch(rethrowNamed);
}

/** Errors of a folder's fsync that mean the file system cannot sync folders, not that it failed. */
const CANNOT_SYNC_FOLDERS = new Set([
  'EINVAL',
  'ENOTSUP',
  'EOPNOTSUPP',
  'EISDIR',
  'EPERM',
  'EBADF',
]);

/**
 * Syncs a folder, so the entries created or renamed in it survive a machine crash: fsync of a
 * file makes its data durable, not the name that leads to it (ext4 and XFS happen to do both,
 * POSIX does not promise it). See docs/architecture.md#durable-names. A file system that cannot
 * sync a folder is let be; one that tries and fails (EIO) is an error like any other write's.
 */
export async function syncFolder(path: string): Promise<void> {
  const folder = await open(path, 'r');
  try {
    refuse('sync', path);
    await folder.sync();
  } catch (error) {
    if (!CANNOT_SYNC_FOLDERS.has((error as NodeJS.ErrnoException).code ?? '')) rethrowNamed(error);
  } finally {
    await folder.close();
  }
}

/** `mkdir -p` (private folders) whose new folders are each synced in their parent. */
export async function makeFolders(path: string): Promise<void> {
  refuse('mkdir', path);
  const first = await makeFoldersOnce(path);
  if (first === undefined) return;
  // Every folder from `first` down to `path` is new; each parent's entry for it is synced.
  const parents: string[] = [];
  for (let folder = path; ; folder = dirname(folder)) {
    parents.unshift(dirname(folder));
    if (folder === first || dirname(folder) === folder) break;
  }
  for (const parent of parents) await syncFolder(parent);
}

/**
 * A recursive mkdir, returning the first folder it made. When it fails, whatever it said (Node 20
 * reports a full disk, a read-only file system or errno 122 as ENOENT, as if a parent were
 * missing; Node 22 and 24 report a full disk as itself), the missing folders are made once more,
 * one by one: the first that fails then fails with the error that says why, and a failure that has
 * passed (a disk that had a moment's trouble) is over. A folder another maker made meanwhile (the
 * run makes its state directory from more than one place at once) is no failure.
 */
async function makeFoldersOnce(path: string): Promise<string | undefined> {
  try {
    return await mkdir(path, { recursive: true, mode: 0o700 });
  } catch (error) {
    if (await exists(path)) return (await isFolder(path)) ? undefined : rethrowNamed(error);
    return makeEachFolder(path);
  }
}

async function makeEachFolder(path: string): Promise<string | undefined> {
  const missing: string[] = [];
  for (let folder = path; dirname(folder) !== folder && !(await exists(folder));) {
    missing.unshift(folder);
    folder = dirname(folder);
  }
  let first: string | undefined;
  for (const folder of missing) {
    const made = await mkdir(folder, { mode: 0o700 }).then(
      () => true,
      async (error: unknown) => {
        if (systemErrorCode(error) === 'EEXIST' && (await isFolder(folder))) return false;
        return rethrowNamed(error);
      },
    );
    first ??= made ? folder : undefined;
  }
  return first;
}

async function isFolder(path: string): Promise<boolean> {
  return stat(path).then(
    (found) => found.isDirectory(),
    () => false,
  );
}

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

/** Throws a failed operation's error with its code named (errno 122 is EDQUOT; see errors.ts). */
function rethrowNamed(error: unknown): never {
  throw namedSystemError(error);
}

/** A private scratch folder in the system's temp folder: nothing in it need outlive the run. */
export async function makeScratchFolder(prefix: string): Promise<string> {
  return mkdtemp(join(tmpdir(), prefix)).catch(rethrowNamed);
}

/** A private scratch folder in `parent`, made if missing, for a run's spill files. */
export function makeScratchFolderSync(parent: string, prefix: string): string {
  try {
    mkdirSync(parent, { recursive: true, mode: 0o700 });
    return mkdtempSync(join(parent, prefix));
  } catch (error) {
    return rethrowNamed(error);
  }
}

/** A new scratch file, read and written by descriptor; never synced, its folder removed whole. */
export function openScratchFileSync(path: string): number {
  return openSync(path, 'w+', 0o600);
}

/** Appends all of `bytes` to a scratch file at its end. */
export function appendScratchSync(fd: number, bytes: Uint8Array): void {
  for (let done = 0; done < bytes.length;) done += writeSync(fd, bytes, done);
}
