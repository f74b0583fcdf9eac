// The journal at scale: bytes per record of a send, a resume of an interrupted campaign (time to its first request), and a resume of a finished one.
// Usage: npm run build && node bench/journal-scale.js [records=1000000]
// It sends `records` rows plus 1% more to `sms-send simulate` (its own process), cuts the journal
// where `records` rows are settled and marks the campaign running, as a kill leaves it, then
// resumes it; then resumes the finished campaign. Each sms-send run is a child measured by
// bench/probe.js (peak RSS); the simulator's probe says when the resumed run's first request came.
import { spawn } from 'node:child_process';
import { cp, mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bin, env, probe, startSimulator, writeCampaign } from './children.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const out = join(root, 'bench', '.out', 'journal-scale');
const records = Number(process.argv[2] ?? 1_000_000);
const total = records + Math.max(1000, Math.ceil(records / 100));

/** Runs sms-send with the probe: wall time, peak RSS, and the epoch ms it started at. */
async function run(label, args, stateDir) {
  const usageFile = join(out, `${label}.usage.json`);
  const startedAt = Date.now();
  const child = spawn(process.execPath, ['--import', probe, bin, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...env, SMS_SEND_STATE_DIR: stateDir, BENCH_USAGE_FILE: usageFile },
  });
  let stderr = '';
  child.stderr.on('data', (data) => (stderr += data));
  child.stdout.resume();
  const code = await new Promise((resolve) => child.on('exit', resolve));
  const ms = Date.now() - startedAt;
  // Exit 1: some records not accepted (batches in flight at the cut are unknown), as after a kill.
  if (code !== 0 && code !== 1) throw new Error(`${label} exited ${code}: ${stderr}`);
  const usage = JSON.parse(await readFile(usageFile, 'utf8'));
  return { ms, startedAt, rssMb: usage.maxRssKb / 1024 };
}

/** The journal cut after the line at which `settled` rows have results, as a kill leaves it. */
async function cutJournal(path, settled) {
  const text = await readFile(path, 'utf8');
  let count = 0;
  let at = 0;
  while (count < settled) {
    const end = text.indexOf('\n', at);
    const line = JSON.parse(text.slice(at, end));
    if (line.t === 'result') {
      for (let k = 0; k + 1 < line.r.length; k += 2) count += line.r[k + 1] - line.r[k] + 1;
    }
    at = end + 1;
  }
  await writeFile(path, text.slice(0, at));
  return count;
}

await rm(out, { recursive: true, force: true });
await mkdir(out, { recursive: true });
const input = join(out, 'campaign.csv');
await writeCampaign(input, total);
const sim = await startSimulator();
const load = [loadavg()[0]];
try {
  const finished = join(out, 'state-finished');
  const report = join(out, 'campaign.report.csv');
  const base = [input, '--endpoint', sim.url, '--yes', '--quiet', '--report', report];
  const sent = await run('send', base, finished);
  const [id] = await (await import('node:fs/promises')).readdir(join(finished, 'campaigns'));
  const folder = (state) => join(state, 'campaigns', id);
  const journalBytes = (await stat(join(folder(finished), 'journal.ndjson'))).size;

  // As a run killed with `records` rows settled leaves it: the journal cut, the manifest running.
  const interrupted = join(out, 'state-interrupted');
  await cp(finished, interrupted, { recursive: true });
  const settled = await cutJournal(join(folder(interrupted), 'journal.ndjson'), records);
  const manifestPath = join(folder(interrupted), 'manifest.json');
  const manifest = JSON.parse(await readFile(manifestPath, 'utf8'));
  delete manifest.summary;
  delete manifest.finishedAt;
  manifest.status = 'running';
  for (const outcome of Object.keys(manifest.counts)) manifest.counts[outcome] = 0;
  await writeFile(manifestPath, JSON.stringify(manifest));
  const firstRequest = sim.nextRequest();
  const resumed = await run('resume', [...base, '--resume'], interrupted);
  const toFirst = (await firstRequest) - resumed.startedAt;

  const answered = await run('resume-finished', [...base, '--resume'], finished);
  // The validation pass alone, which a resume runs before its first batch as a send does.
  const dry = await run('dry-run', [input, '--dry-run', '--quiet'], join(out, 'state-dry'));
  load.push(loadavg()[0]);

  // The journal's own pass, in this process: what a resume reads before anything else.
  const { readJournal } = await import('../dist/journal/journal.js');
  const readStart = performance.now();
  await readJournal(join(folder(interrupted), 'journal.ndjson'));
  const readMs = performance.now() - readStart;

  const rows = [
    ['run', 'wall', 'peak RSS', 'note'],
    [
      `send ${total.toLocaleString('en')}`,
      `${(sent.ms / 1000).toFixed(1)} s`,
      `${sent.rssMb.toFixed(0)} MB`,
      `journal ${(journalBytes / total).toFixed(2)} bytes/record (${(journalBytes / 1e6).toFixed(1)} MB)`,
    ],
    [
      `resume, ${settled.toLocaleString('en')} settled`,
      `${(resumed.ms / 1000).toFixed(1)} s`,
      `${resumed.rssMb.toFixed(0)} MB`,
      `first request after ${(toFirst / 1000).toFixed(2)} s; journal pass ${readMs.toFixed(0)} ms`,
    ],
    [
      'dry run (validation pass)',
      `${(dry.ms / 1000).toFixed(1)} s`,
      `${dry.rssMb.toFixed(0)} MB`,
      'what any run reads before its first batch',
    ],
    [
      'resume, finished',
      `${(answered.ms / 1000).toFixed(2)} s`,
      `${answered.rssMb.toFixed(0)} MB`,
      'answered from the manifest',
    ],
  ];
  const widths = rows[0].map((_c, i) => Math.max(...rows.map((r) => r[i].length)));
  for (const row of rows)
    console.log(
      row
        .map((c, i) => c.padEnd(widths[i]))
        .join('  ')
        .trimEnd(),
    );
  console.log(
    `Node ${process.versions.node}, load average ${load.map((l) => l.toFixed(1)).join(' to ')}`,
  );
} finally {
  sim.stop();
  await rm(out, { recursive: true, force: true });
}
