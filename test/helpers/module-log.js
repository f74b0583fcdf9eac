// Preloaded with --import (through NODE_OPTIONS) by test/e2e/startup.test.ts: registers hooks that
// append every ES module a run loads to the file named by SMS_SEND_TEST_MODULE_LOG.
import { register } from 'node:module';

register('./module-log-hooks.js', import.meta.url);
