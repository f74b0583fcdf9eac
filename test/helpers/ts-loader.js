// `node --import ./ts-loader.js child.ts`: lets a child process a test starts run the TypeScript
// sources directly (src/ as the tests see it, never a stale dist/), transpiled by the project's tsc.
import { register } from 'node:module';

register('./ts-hooks.js', import.meta.url);
