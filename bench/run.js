// Benchmark: the full sms-send run (CSV in → simulator → report out) for N records.
// The bare-undici baseline, RSS and --help timing arrive with the reliability work (see README).
import { spawn } from 'node:child_process';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'bin', 'sms-send.js');
const out = join(root, 'bench', '.out');
const records = Number(process.argv[2] ?? 100_000);

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

function run(args, env) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [bin, ...args], {
      stdio: ['ignore', 'ignore', 'inherit'],
      env: { ...process.env, ...env },
    });
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, ms: performance.now() - started }));
  });
}

await rm(out, { recursive: true, force: true });
await mkdir(out, { recursive: true });
const input = join(out, `bench-${records}.csv`);
const lines = ['to,name,text'];
for (let i = 0; i < records; i++)
  lines.push(`47${41000000 + (i % 8_000_000)},N${i},"Hello {{name}}, this is message ${i}"`);
await writeFile(input, `${lines.join('\n')}\n`);

const simulator = await startSimulator();
try {
  const result = await run([input, '--endpoint', simulator.url, '--yes'], {
    SMS_SEND_USERNAME: 'bench',
    SMS_SEND_PASSWORD: 'bench',
  });
  const rate = (records * 1000) / result.ms;
  console.log(
    `sms-send full run: ${records.toLocaleString('en-US')} records in ${(result.ms / 1000).toFixed(2)} s = ${Math.round(rate).toLocaleString('en-US')} msg/s (exit ${result.code})`,
  );
} finally {
  simulator.stop();
}
