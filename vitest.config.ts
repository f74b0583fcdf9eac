// Test runner settings: colour pinned off so rendered strings are stable; e2e tests get room for spawning.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    setupFiles: ['test/setup/state-dir.ts'],
    env: { FORCE_COLOR: '0', NO_COLOR: '1' },
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // The default is one worker per core less one: a single worker on a 2-core machine, idle
    // while e2e files wait on their children and on simulated latency. Two keep both cores busy.
    maxWorkers: 2,
    allowOnly: false,
  },
});
