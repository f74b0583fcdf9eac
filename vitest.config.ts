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
    allowOnly: false,
  },
});
