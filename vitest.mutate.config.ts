// The test run a mutation run uses (stryker.config.json): the tests that exercise the never-twice
// core in the test's own process, so each mutant is seen by the tests that cover it. Tests that
// spawn the built binary (test/e2e) run unmutated code, and the slow end-to-end pipelines (faults,
// input, parallel) would multiply a run of minutes many times over for few mutants more.
import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

export default defineConfig({
  ...base,
  test: {
    ...base.test,
    // One plain project: each file with module instances of its own, as Stryker expects.
    projects: undefined,
    include: [
      'test/unit/**/*.test.ts',
      'test/journal/**/*.test.ts',
      'test/dlr/{matching,apply}.test.ts',
      'test/pipeline/{retry,send,identity}.test.ts',
    ],
    // Slow, and about input and numbers: none of them reaches the core.
    exclude: [
      'test/unit/input-csv-rows.test.ts',
      'test/unit/message-number-rules.test.ts',
      'test/unit/validate-digest.test.ts',
    ],
  },
});
