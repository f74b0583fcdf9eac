// The campaign store the settings name: the state directory (the default, needing nothing).
import { FolderStore } from './folder-store.js';
import type { CampaignStore } from './store.js';

/** The settings that say where campaigns are kept. */
export interface StoreSettings {
  stateDir: string;
}

export function openStore(settings: StoreSettings): CampaignStore {
  return new FolderStore(settings.stateDir);
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
