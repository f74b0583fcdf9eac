// This host's cache of its campaigns, beside the store that holds their state: the spool a resume
// may reuse, the inputs' digests, readings of a journal kept elsewhere. Losing
// any of it costs time (a validation pass, hashing the inputs again), never a message.
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { exists } from '../shared/files.js';
import { InputDigests } from './input-digests.js';
import type { CampaignStatus } from './manifest.js';

/** A campaign's files on this host. */
export interface LocalFiles {
  dir: string;
  /** The validated messages, ready to send, in input order. */
  spool: string;
  /** Beside a complete spool kept for the campaign's next run (campaign/steps/kept-spool.ts). */
  spoolStamp: string;
}

/** Where the cache is: the state directory, and whether the state itself is elsewhere. */
export interface CacheSettings {
  stateDir: string;
  stateUrl?: string;
}

export class HostCache {
  /** Readings of journals this process made, removed when the cache is closed. */
  private readonly readings = new Set<string>();
  private made = 0;

  /**
   * `campaigns`: the folder of each campaign's cache. With the state in the state directory it is
   * the campaign's own folder there, so the campaign and its cache are one place on the host.
   */
  constructor(
    private readonly stateDir: string,
    private readonly campaigns: string,
  ) {}

  files(id: string): LocalFiles {
    const dir = join(this.campaigns, id);
    return {
      dir,
      spool: join(dir, 'spool'),
      spoolStamp: join(dir, 'spool.json'),
    };
  }

  /** The inputs' remembered digests (docs/campaign-state.md#state-directory). */
  inputDigests(): Promise<InputDigests> {
    return InputDigests.open(this.stateDir);
  }

  /** A new file to read a campaign's journal into, this process's own; removed by close(). */
  async reading(id: string): Promise<string> {
    const { dir } = this.files(id);
    await mkdir(dir, { recursive: true });
    const path = join(dir, `journal-${process.pid}-${this.made++}.ndjson`);
    this.readings.add(path);
    return path;
  }

  /**
   * An unfinished campaign (`status` other than finished) keeps its complete, stamped spool for
   * its next run; anything else goes (docs/campaign-state.md#the-kept-spool).
   */
  async releaseSpool(id: string, status: CampaignStatus | undefined): Promise<void> {
    const files = this.files(id);
    const kept = status !== undefined && status !== 'finished' && (await exists(files.spoolStamp));
    if (kept) return;
    await rm(files.spoolStamp, { force: true });
    await rm(files.spool, { force: true });
  }

  /** Forgets a campaign the store no longer has. */
  async remove(id: string): Promise<void> {
    await rm(this.files(id).dir, { recursive: true, force: true });
  }

  /** Removes this process's readings: of no use once the command is done. */
  async close(): Promise<void> {
    for (const path of this.readings) await rm(path, { force: true });
    this.readings.clear();
  }
}

/** The cache of the host a command runs on, for the state the settings name. */
export function hostCache({ stateDir, stateUrl }: CacheSettings): HostCache {
  return new HostCache(stateDir, join(stateDir, stateUrl === undefined ? 'campaigns' : 'cache'));
}
