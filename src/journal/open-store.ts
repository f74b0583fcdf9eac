// The campaign store the settings name (PostgreSQL with a state URL, else the state directory, the
// default, needing nothing), with this host's cache beside it.
import { hostCache, type HostCache } from './cache.js';
import { FolderStore } from './folder/index.js';
import { DatabaseStore } from './postgres/index.js';
import type { CampaignStore } from './store.js';

/** The settings that say where campaigns are kept. */
export interface StoreSettings {
  stateDir: string;
  stateUrl?: string;
  leaseMs: number;
}

/** A command's view of its campaigns: the store that holds their state, and this host's cache. */
export interface CampaignState {
  store: CampaignStore;
  cache: HostCache;
}

export function openState(settings: StoreSettings): CampaignState {
  const cache = hostCache(settings);
  const { stateUrl } = settings;
  const store =
    stateUrl === undefined
      ? new FolderStore(settings.stateDir, cache)
      : new DatabaseStore({ stateUrl, leaseMs: settings.leaseMs }, cache);
  return { store, cache };
}

/** Closes the store, then the cache (a store's last readings are the cache's). */
export async function closeState({ store, cache }: CampaignState): Promise<void> {
  try {
    await store.close();
  } finally {
    await cache.close();
  }
}

/** The campaigns the settings name, open while `use` runs and closed after. */
export async function withState<T>(
  settings: StoreSettings,
  use: (state: CampaignState) => Promise<T>,
): Promise<T> {
  const state = openState(settings);
  try {
    return await use(state);
  } finally {
    await closeState(state);
  }
}
