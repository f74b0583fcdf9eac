// The state directory as a campaign store: the contract every store keeps.
import { afterEach } from 'vitest';
import { join } from 'node:path';
import { FolderStore } from '../../src/journal/folder/store.js';
import { tempDir } from '../helpers/files.js';
import { storeContract } from './store-contract.js';

const dirs: Array<Awaited<ReturnType<typeof tempDir>>> = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await dir.remove();
});

storeContract('the state directory', async () => {
  const dir = await tempDir();
  dirs.push(dir);
  return new FolderStore(join(dir.path, 'state'));
});
