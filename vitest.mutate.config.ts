// The test run a mutation run uses (stryker.config.json): only tests whose code runs in the test's
// own process, so each mutant is seen by the tests that cover it. Tests that spawn the built binary
// (test/e2e) or a child on the sources (memory) run unmutated code and would only slow the run.
import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: ['test/{unit,journal,pipeline,dlr,gateway}/**/*.test.ts'],
    exclude: ['test/gateway/memory.test.ts'],
  },
});
