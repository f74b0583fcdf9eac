// Preloaded with --import (through NODE_OPTIONS) by test/e2e/startup.test.ts: registers hooks that
// append every ES module a run loads to the file named by SMS_SEND_TEST_MODULE_LOG, and at exit the
// CommonJS modules it required (require.cache: libphonenumber-js and undici load that way).
import { appendFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';
import { pathToFileURL } from 'node:url';

register('./module-log-hooks.js', import.meta.url);

const cache = createRequire(import.meta.url).cache;
process.on('exit', () => {
  const log = process.env.SMS_SEND_TEST_MODULE_LOG;
  if (!log) return;
  const required = Object.keys(cache).map((path) => pathToFileURL(path).href);
  if (required.length > 0) appendFileSync(log, `${required.join('\n')}\n`);
});
