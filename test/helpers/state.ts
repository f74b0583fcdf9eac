// Campaign state for tests that read or write it directly: the state directory's store and this
// host's cache, as a command opens them.
import { hostCache } from '../../src/journal/cache.js';
import { FolderStore } from '../../src/journal/folder/index.js';
import { openState, type CampaignState } from '../../src/journal/open-store.js';
import { DatabaseStore } from '../../src/journal/postgres/index.js';
import type { Manifest, StartFields } from '../../src/journal/manifest.js';
import type { CampaignStore } from '../../src/journal/store.js';

/** The lease a test's runs take: the settings' default. */
const LEASE_MS = 30_000;

export function folderState(stateDir: string): CampaignState {
  return openState({ stateDir, leaseMs: LEASE_MS });
}

export function folderStore(stateDir: string): CampaignStore {
  return folderState(stateDir).store;
}

/** The state directory's own store (the class, for what only it has). */
export function folderStoreAt(stateDir: string): FolderStore {
  return new FolderStore(stateDir, hostCache({ stateDir }));
}

/** The PostgreSQL store at `stateUrl`, its host cache under `stateDir`. */
export function databaseStore(stateUrl: string, stateDir: string): DatabaseStore {
  return new DatabaseStore({ stateUrl, leaseMs: LEASE_MS }, hostCache({ stateDir, stateUrl }));
}

/** What a run starting gives of a manifest: all but what startedManifest derives (the report is the caller's). */
export function startFieldsOf(manifest: Manifest): StartFields {
  const fields: Partial<Manifest> = { ...manifest };
  delete fields.reports;
  delete fields.createdAt;
  delete fields.runs;
  return { ...(fields as Omit<Manifest, 'createdAt' | 'runs' | 'reports'>), report: '' };
}
