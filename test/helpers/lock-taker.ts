// A child process racing another for stale locks (test/e2e/crash.test.ts). For each trial it says
// it is ready, waits for the parent's "go" (sent to both takers at once), tries acquireLock on
// <dir>/t<k>.lock, and records 1 (taken) or 0 (refused). It reports the string, then stays alive,
// holding every lock it took, until told to exit: a lock whose owner has died is rightly taken
// over, and that is not the race under test. (Trial by trial, not all at once: with every trial
// in flight together one taker often finishes them all before the other starts, and no race is run.)
import { acquireLock } from '../../src/journal/lock.js';
import { LockedError } from '../../src/shared/errors.js';

type FromParent = { go: number } | { exit: true };

const [dir, trials] = process.argv.slice(2);
const inbox: FromParent[] = [];
let wake: (() => void) | undefined;
process.on('message', (message: FromParent) => {
  inbox.push(message);
  wake?.();
});

async function next(): Promise<FromParent> {
  while (inbox.length === 0) await new Promise<void>((resolve) => (wake = resolve));
  return inbox.shift()!;
}

let taken = '';
for (let k = 0; k < Number(trials); k++) {
  process.send!({ ready: k });
  const message = await next();
  if (!('go' in message) || message.go !== k) throw new Error(`expected go ${k}`);
  try {
    await acquireLock(`${dir}/t${k}.lock`);
    taken += '1';
  } catch (error) {
    if (!(error instanceof LockedError)) throw error;
    taken += '0';
  }
}
process.send!({ taken });
await next();
process.disconnect();
