// `sms-send campaigns` over a state directory of 200 campaigns, one of them 1,000,000 records and interrupted: the list's wall time.
// Usage: npm run build && node bench/campaigns-list.js [campaigns=200] [records=1000000]
// The campaigns are written as sms-send writes them (manifest, journal); the big one's journal is
// a real one's size. Each listing is a child process; the median of 5 is printed beside `node -e 0`.
import { spawnSync } from 'node:child_process';
import { mkdir, open, rm, writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'bin', 'sms-send.js');
const state = join(root, 'bench', '.out', 'campaigns-list');
const count = Number(process.argv[2] ?? 200);
const big = Number(process.argv[3] ?? 1_000_000);

function manifest(i, records, status) {
  const at = new Date(Date.UTC(2030, 0, 1) + i * 3_600_000).toISOString();
  const counts = { accepted: records, rejected: 0, invalid: 0, failed: 0, unknown: 0, skipped: 0 };
  return {
    v: 1,
    id: `c${String(i).padStart(15, '0')}`,
    named: false,
    contentHash: 'h'.repeat(64),
    inputs: [{ path: `/data/campaign-${i}.csv`, sha256: 's'.repeat(64), bytes: records * 30 }],
    target: 'simulator',
    reports: [`/data/campaign-${i}.report.csv`],
    createdAt: at,
    startedAt: at,
    updatedAt: at,
    status,
    runs: 1,
    records,
    counts: status === 'finished' ? counts : { ...counts, accepted: 0 },
    ...(status === 'finished'
      ? {
          finishedAt: at,
          summary: {
            byStatusCode: { 0: { count: records, description: 'Accepted' } },
            suppressed: 0,
          },
        }
      : {}),
  };
}

/** A journal as a send of `records` in batches of 100 writes it. */
async function writeJournal(path, records) {
  const handle = await open(path, 'w');
  let text = `{"t":"start","v":2,"campaign":"${'h'.repeat(64)}","run":1,"at":"2030-01-01T00:00:00.000Z"}\n`;
  for (let first = 1, b = 1; first <= records; first += 100, b++) {
    const last = Math.min(records, first + 99);
    const n = last - first + 1;
    text +=
      `{"t":"batch","b":"1:${b}","r":[${first},${last}]}\n` +
      `{"t":"result","b":"1:${b}","r":[${first},${last}],"o":[[${n},"accepted"]],"a":[[${n},1]],"c":[[${n},0]],"d":[[${n},"Accepted"]],"i":[[${n},"8f3a91c21-",${first},1]],"x":{"server":[[${n},"sim1"]],"subnumref":[[${n},"997",${9990000000000 + first},15]]}}\n`;
    if (text.length > 1 << 20) {
      await handle.write(text);
      text = '';
    }
  }
  await handle.write(text);
  await handle.close();
}

function wall(args) {
  const started = performance.now();
  const result = spawnSync(process.execPath, args, {
    env: { ...process.env, SMS_SEND_STATE_DIR: state, NO_COLOR: '1' },
    encoding: 'utf8',
  });
  if (result.status !== 0) throw new Error(`${args.join(' ')}: ${result.stderr}`);
  return { ms: performance.now() - started, stdout: result.stdout };
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

await rm(state, { recursive: true, force: true });
try {
  for (let i = 0; i < count; i++) {
    // The newest is the big one, killed mid-run: its manifest still says running.
    const records = i === count - 1 ? big : 1000 + i;
    const m = manifest(i, records, i === count - 1 ? 'running' : 'finished');
    const dir = join(state, 'campaigns', m.id);
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'manifest.json'), JSON.stringify(m, null, 2));
    await writeJournal(join(dir, 'journal.ndjson'), records);
  }
  const load = loadavg()[0];
  const listed = wall([bin, 'campaigns', '--json']);
  const shown = JSON.parse(listed.stdout).campaigns.length;
  if (shown !== count) throw new Error(`listed ${shown} campaigns of ${count}`);
  const list = median(Array.from({ length: 5 }, () => wall([bin, 'campaigns']).ms));
  const node = median(Array.from({ length: 5 }, () => wall(['-e', '0']).ms));
  // The listing alone, in this process: what is left once a process has started.
  const { listCampaigns } = await import('../dist/journal/state.js');
  const inProcess = median(
    await Array.from({ length: 5 }).reduce(async (done) => {
      const times = await done;
      const started = performance.now();
      await listCampaigns(state);
      return [...times, performance.now() - started];
    }, Promise.resolve([])),
  );
  console.log(
    `sms-send campaigns, ${count} campaigns (one of ${big.toLocaleString('en')} records, interrupted): ` +
      `${(list / 1000).toFixed(2)} s (median of 5; node -e 0: ${(node / 1000).toFixed(2)} s; ` +
      `the listing alone, in-process: ${inProcess.toFixed(0)} ms); ` +
      `Node ${process.versions.node}, load average ${load.toFixed(1)}`,
  );
} finally {
  await rm(state, { recursive: true, force: true });
}
