// The state directory as a campaign store: the contract every store keeps.
import { afterEach } from 'vitest';
import { join } from 'node:path';
import { tempDir } from '../helpers/files.js';
import { storeContract } from './store-contract.js';
import { folderStoreAt } from '../helpers/state.js';

const dirs: Array<Awaited<ReturnType<typeof tempDir>>> = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await dir.remove();
});

storeContract('the state directory', async () => {
  const dir = await tempDir();
  dirs.push(dir);
  return folderStoreAt(join(dir.path, 'state'));
});
