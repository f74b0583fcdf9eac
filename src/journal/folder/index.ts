// The state directory as a campaign store, reached from outside through this file alone.
export { FolderStore } from './store.js';
