// Preloaded (node --import) into the bench's children: the process's own CPU and peak RSS, and the simulator's first request.
// BENCH_USAGE_FILE: at exit, write {userUs, systemUs, maxRssKb} from process.resourceUsage() there.
// BENCH_FIRST_REQUEST=1: on SIGUSR2 print "bench-armed", then "bench-first-request <epoch ms>" on
// stderr when the next HTTP request arrives (the simulator runs in its own process).
import { subscribe } from 'node:diagnostics_channel';
import { writeFileSync } from 'node:fs';

const usageFile = process.env.BENCH_USAGE_FILE;
if (usageFile) {
  process.on('exit', () => {
    const usage = process.resourceUsage();
    writeFileSync(
      usageFile,
      JSON.stringify({
        userUs: usage.userCPUTime,
        systemUs: usage.systemCPUTime,
        maxRssKb: usage.maxRSS,
      }),
    );
  });
}

if (process.env.BENCH_FIRST_REQUEST === '1') {
  let armed = false;
  process.on('SIGUSR2', () => {
    armed = true;
    process.stderr.write('bench-armed\n');
  });
  subscribe('http.server.request.start', () => {
    if (!armed) return;
    armed = false;
    process.stderr.write(`bench-first-request ${Date.now()}\n`);
  });
}
