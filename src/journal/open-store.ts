// The campaign store the settings name: PostgreSQL with a state URL, else the state directory (the
// default, needing nothing).
import { FolderStore } from './folder-store.js';
import { DatabaseStore } from './postgres/index.js';
import type { CampaignStore } from './store.js';

/** The settings that say where campaigns are kept. */
export interface StoreSettings {
  stateDir: string;
  stateUrl?: string;
  leaseMs: number;
}

export function openStore(settings: StoreSettings): CampaignStore {
  const { stateUrl } = settings;
  if (stateUrl === undefined) return new FolderStore(settings.stateDir);
  return new DatabaseStore({ ...settings, stateUrl });
}

/** The store the settings name, open while `use` runs and closed after. */
export async function withStore<T>(
  settings: StoreSettings,
  use: (store: CampaignStore) => Promise<T>,
): Promise<T> {
  const store = openStore(settings);
  try {
    return await use(store);
  } finally {
    await store.close();
  }
}
