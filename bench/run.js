// npm run bench: throughput against a bare undici loop, peak memory, and --help start-up time.
// Usage: node bench/run.js [records=100000] [--rss-records=1000000]
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'bin', 'sms-send.js');
const out = join(root, 'bench', '.out');
const args = process.argv.slice(2);
const records = Number(args.find((a) => /^\d+$/.test(a)) ?? 100_000);
const rssRecords = Number(
  (args.find((a) => a.startsWith('--rss-records=')) ?? '--rss-records=1000000').split('=')[1],
);
const CONCURRENCY = 4;
const BATCH = 100;
const env = {
  ...process.env,
  SMS_SEND_USERNAME: 'bench',
  SMS_SEND_PASSWORD: 'bench-pw',
  NO_COLOR: '1',
  // Campaign state of its own, removed with the rest of the output.
  SMS_SEND_STATE_DIR: join(out, 'state'),
};

const text = (i) => `Hello N${i}, this is message ${i}`;
const msisdn = (i) => 4741000000 + (i % 8_000_000);

async function writeCampaign(file, count) {
  const chunks = ['to,name,text\n'];
  for (let i = 0; i < count; i++) {
    chunks.push(`${msisdn(i)},N${i},"Hello {{name}}, this is message ${i}"\n`);
    if (chunks.length >= 10_000) {
      await writeFile(file, chunks.join(''), { flag: 'a' });
      chunks.length = 0;
    }
  }
  await writeFile(file, chunks.join(''), { flag: 'a' });
}

function startSimulator() {
  const child = spawn(process.execPath, [bin, 'simulate', '--port', '0', '--no-color'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let seen = '';
    child.stderr.on('data', (chunk) => {
      seen += chunk;
      const match = /listening on (http:\/\/\S+)/.exec(seen);
      if (match) resolve({ url: match[1], stop: () => child.kill('SIGINT') });
    });
    child.on('exit', () => reject(new Error(`simulator exited: ${seen}`)));
  });
}

/** (a) The floor: prebuilt RestSmsRequest bodies pushed by CONCURRENCY loops over one Pool. */
async function bareLoop(url, count) {
  const bodies = [];
  for (let start = 0; start < count; start += BATCH) {
    const messages = [];
    for (let i = start; i < Math.min(count, start + BATCH); i++) {
      messages.push({
        Gateway: 99700999,
        DestinationAddress: msisdn(i),
        Price: 0,
        MessageType: '00',
        MessageId: `bench-${i}`,
        UserData: text(i),
      });
    }
    bodies.push(JSON.stringify({ Username: 'bench', Password: 'bench-pw', Messages: messages }));
  }
  const pool = new Pool(url, { connections: CONCURRENCY });
  let next = 0;
  const started = performance.now();
  const loop = async () => {
    while (next < bodies.length) {
      const body = bodies[next++];
      const response = await pool.request({
        method: 'POST',
        path: '/json/reply/RestSmsRequest',
        headers: { accept: 'application/json', 'content-type': 'application/json' },
        body,
      });
      await response.body.text();
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, loop));
  const ms = performance.now() - started;
  await pool.close();
  return ms;
}

/** Runs the CLI; peak RSS comes from GNU time when it is installed. */
function runCli(cliArgs, extraEnv = {}) {
  const time = existsSync('/usr/bin/time') ? ['/usr/bin/time', '-f', '%M'] : [];
  const [cmd, ...rest] = time.length ? time : [process.execPath];
  const argv = time.length ? [...rest, process.execPath, bin, ...cliArgs] : [bin, ...cliArgs];
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(cmd, argv, {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...env, ...extraEnv },
    });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('exit', (code) => {
      const ms = performance.now() - started;
      const kb = Number(/(\d+)\s*$/.exec(stderr.trim())?.[1]);
      resolve({
        code,
        ms,
        rssMb: time.length && Number.isFinite(kb) ? kb / 1024 : undefined,
        stderr,
      });
    });
  });
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

function timeCommand(argv, runs = 15) {
  const times = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    spawnSync(process.execPath, argv, { stdio: 'ignore' });
    times.push(performance.now() - started);
  }
  return median(times);
}

const fmt = (n) => Math.round(n).toLocaleString('en-US');

await rm(out, { recursive: true, force: true });
await mkdir(out, { recursive: true });
const input = join(out, `bench-${records}.csv`);
await writeCampaign(input, records);

const simulator = await startSimulator();
try {
  console.log(
    `sms-send benchmark: ${fmt(records)} records, batches of ${BATCH}, ${CONCURRENCY} connections`,
  );
  const bareMs = await bareLoop(simulator.url, records);
  const full = await runCli([
    input,
    '--endpoint',
    simulator.url,
    '--yes',
    '--quiet',
    '--report',
    join(out, 'full.report.csv'),
  ]);
  if (full.code !== 0) throw new Error(`sms-send exited ${full.code}: ${full.stderr}`);
  const bareRate = (records * 1000) / bareMs;
  const fullRate = (records * 1000) / full.ms;
  console.log(`(a) bare undici loop:  ${fmt(bareRate)} msg/s`);
  console.log(
    `(b) full sms-send run: ${fmt(fullRate)} msg/s (CSV in, validation, simulator, report out)`,
  );
  console.log(`    ratio: ${(fullRate / bareRate).toFixed(2)} (target >= 0.70)`);
  if (full.rssMb !== undefined)
    console.log(`(c) peak RSS, ${fmt(records)} records: ${full.rssMb.toFixed(0)} MB`);

  if (rssRecords > 0 && full.rssMb !== undefined) {
    const big = join(out, `bench-${rssRecords}.csv`);
    await writeCampaign(big, rssRecords);
    const run = await runCli([
      big,
      '--endpoint',
      simulator.url,
      '--yes',
      '--quiet',
      '--report',
      join(out, 'big.report.csv'),
    ]);
    if (run.code !== 0) throw new Error(`sms-send exited ${run.code}: ${run.stderr}`);
    console.log(
      `    peak RSS, ${fmt(rssRecords)} records: ${run.rssMb.toFixed(0)} MB (target < 150, flat); ${fmt((rssRecords * 1000) / run.ms)} msg/s`,
    );
    // V8 sizes its young generation up to 48 MB by default; a smaller one trades a little speed.
    const small = await runCli(
      [
        big,
        '--endpoint',
        simulator.url,
        '--yes',
        '--quiet',
        '--force',
        '--report',
        join(out, 'big.report.csv'),
      ],
      { NODE_OPTIONS: '--max-semi-space-size=4' },
    );
    if (small.code !== 0) throw new Error(`sms-send exited ${small.code}: ${small.stderr}`);
    console.log(
      `    with NODE_OPTIONS=--max-semi-space-size=4: ${small.rssMb.toFixed(0)} MB; ${fmt((rssRecords * 1000) / small.ms)} msg/s`,
    );
  }
} finally {
  simulator.stop();
}

const help = timeCommand([bin, '--help']);
const node = timeCommand(['-e', '0']);
console.log(
  `(d) sms-send --help: ${help.toFixed(0)} ms, node -e 0: ${node.toFixed(0)} ms, ratio ${(help / node).toFixed(2)} (target <= 2.5)`,
);
await rm(out, { recursive: true, force: true });
