// Loader hooks for test/helpers/module-log.js: one line per module URL, as it loads.
import { appendFileSync } from 'node:fs';

export async function load(url, context, nextLoad) {
  if (process.env.SMS_SEND_TEST_MODULE_LOG) {
    appendFileSync(process.env.SMS_SEND_TEST_MODULE_LOG, `${url}\n`);
  }
  return nextLoad(url, context);
}
