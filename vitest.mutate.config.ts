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
      'test/{config,gateway,input,journal,message,report,send,shared,validate}/*.test.ts',
      'test/campaign/steps/*.test.ts',
      'test/dlr/{matching,apply}.test.ts',
      'test/pipeline/{retry,send,identity}.test.ts',
    ],
    // Slow, and about input and numbers: none of them reaches the core.
    exclude: [
      'test/input/csv-rows.test.ts',
      'test/message/number-rules.test.ts',
      'test/validate/digest.test.ts',
      // Module tests that spawn a process or a server, or fill a disk: they run unmutated code.
      'test/gateway/{memory,proxy,wire}.test.ts',
      'test/input/json-error.test.ts',
      'test/report/pick.test.ts',
    ],
  },
});
