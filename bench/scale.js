// npm run bench -- --scale: a campaign of 1,000,000 and of 10,000,000 records end to end, on each Node.js line given.
// Usage: node bench/run.js --scale[=N,N…] [--memory-limit=MiB] [--json] [--node=PATH]
// For each size: the dry run, the send, a send killed (SIGKILL) at 40% and its --resume, and
// --resume of the finished campaign; each with wall time, CPU per record of the campaign, peak
// RSS and the journal's bytes per record, and for the resume after the kill, when its first
// request reached the simulator. Judged against the memory and journal budgets of
// docs/benchmark.md#budgets. The simulator runs in a process of its own and is not counted.
// --memory-limit=MiB runs each measured run inside a memory cgroup of that size (as root), as a
// container or a small VPS gives: rows say whether the kernel killed a run for memory.
// At 1,000,000 records and below, the send, the kill and the two resumes run again with the state
// in PostgreSQL (a server of the bench's own, fsync on), each campaign against a simulator of its
// own that books every MessageId: 0 sent twice, and the memory and time beside the folder's.
// --skip-postgres leaves them out.
import { existsSync } from 'node:fs';
import { mkdir, readdir, rm, stat } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import {
  bin,
  measure,
  otherNodes,
  out,
  sendArgv,
  startSimulator,
  writeCampaign,
} from './children.js';
import { startPostgres } from './postgres-server.js';

const args = process.argv.slice(2);
const json = args.includes('--json');
const sizesArg = args.find((a) => a.startsWith('--scale='));
const sizes = sizesArg ? sizesArg.slice(8).split(',').map(Number) : [1_000_000, 10_000_000];
const KILL_AT = 0.4;
/** The largest campaign the PostgreSQL rows run (DESIGN's budget is at a million). */
const POSTGRES_UP_TO = 1_000_000;
const postgres = !args.includes('--skip-postgres');
const limitArg = args.find((a) => a.startsWith('--memory-limit='));
const memoryLimitMb = limitArg ? Number(limitArg.slice('--memory-limit='.length)) : undefined;
if (memoryLimitMb !== undefined && !(memoryLimitMb > 0)) {
  throw new Error(`--memory-limit=${limitArg.slice(15)}: MiB, a number above 0`);
}
// With --json, stdout carries only the document; progress goes to stderr.
const say = (line) => (json ? process.stderr : process.stdout).write(`${line}\n`);
const fmt = (n) => Math.round(n).toLocaleString('en-US');
const round = (n, digits = 0) => Number(n.toFixed(digits));

/** Bytes of the journal files (journal*) in every campaign folder of a state directory. */
async function journalBytes(stateDir) {
  const campaigns = join(stateDir, 'campaigns');
  let bytes = 0;
  for (const id of existsSync(campaigns) ? await readdir(campaigns) : []) {
    for (const name of await readdir(join(campaigns, id))) {
      if (name.startsWith('journal')) bytes += (await stat(join(campaigns, id, name))).size;
    }
  }
  return bytes;
}

async function fileSize(path) {
  try {
    return (await stat(path)).size;
  } catch {
    return 0;
  }
}

/** The four runs of one campaign size on one Node.js line, as rows. */
async function runSize(node, records, simulator) {
  const { url } = simulator;
  const input = join(out, `scale-${records}.csv`);
  if (!existsSync(input)) {
    say(`  writing ${fmt(records)} records…`);
    await writeCampaign(input, records);
  }
  const tag = `${node.version}-${records}`;
  const sendArgs = (report) => sendArgv(input, url, 4, report);
  const row = async (what, run, stateDir) => ({
    node: node.version,
    records,
    run: what,
    wallS: round(run.ms / 1000, 1),
    cpuUsPerRecord: round(run.cpuUs / records, 2),
    peakRssMb: round(run.rssMb),
    journalBytesPerRecord: stateDir ? round((await journalBytes(stateDir)) / records, 1) : null,
    ...(run.code !== undefined && run.code !== 0 ? { exitCode: run.code } : {}),
    ...(memoryLimitMb === undefined ? {} : { memoryLimitMb, oomKilled: run.oomKilled === true }),
  });
  const rows = [];
  const sent = join(out, `state-send-${tag}`);
  const killed = join(out, `state-killed-${tag}`);
  const sentReport = join(out, `send-${tag}.report.csv`);
  const killedReport = join(out, `killed-${tag}.report.csv`);
  const opts = { node: node.path, memoryLimitMb };
  // A resume that holds the journal in memory is stopped by V8 at 4 GB of heap rather than take
  // a shared machine's memory: the row then shows how it ended. No other row is near the limit.
  // Inside a memory limit V8 sizes its heap from the limit, as it does for sms-send's users.
  const resumeOpts = {
    ...opts,
    nodeArgs: memoryLimitMb === undefined ? ['--max-old-space-size=4096'] : [],
    mayFail: true,
  };
  try {
    say(`  Node.js ${node.version}, ${fmt(records)} records: --dry-run…`);
    const dry = await measure(`dry-${tag}`, [bin, input, '--dry-run', '--quiet'], opts);
    rows.push(await row('--dry-run', dry));
    say(`  Node.js ${node.version}, ${fmt(records)} records: send…`);
    const send = await measure(`send-${tag}`, sendArgs(sentReport), { ...opts, stateDir: sent });
    rows.push(await row('send', send, sent));
    // Killed once its report holds 40% of the rows a whole send's report held.
    const whole = await fileSize(sentReport);
    say(`  Node.js ${node.version}, ${fmt(records)} records: send killed at 40%…`);
    const kill = await measure(`killed-${tag}`, sendArgs(killedReport), {
      ...opts,
      stateDir: killed,
      killWhen: async () => (await fileSize(killedReport)) >= whole * KILL_AT,
    });
    rows.push(await row('send, killed at 40%', kill, killed));
    // The rows the killed run settled, as its report holds them (written as answers arrive).
    const settled = Math.round((records * (await fileSize(killedReport))) / whole);
    say(`  Node.js ${node.version}, ${fmt(records)} records: --resume after the kill…`);
    // When the resume's first request reaches the simulator (a resume that sends nothing has none).
    const first = simulator.nextRequest();
    const resume = await measure(`resume-${tag}`, [...sendArgs(killedReport), '--resume'], {
      ...resumeOpts,
      stateDir: killed,
      exitCodes: [1],
    });
    const firstAt = await Promise.race([first, new Promise((r) => setTimeout(r, 1000))]);
    rows.push({
      ...(await row('--resume after the kill', resume, killed)),
      settled,
      ...(firstAt === undefined
        ? {}
        : { firstRequestS: round((firstAt - resume.startedAt) / 1000, 2) }),
    });
    say(`  Node.js ${node.version}, ${fmt(records)} records: --resume of the finished campaign…`);
    const again = await measure(`finished-${tag}`, [...sendArgs(sentReport), '--resume'], {
      ...resumeOpts,
      stateDir: sent,
      exitCodes: [1, 2],
    });
    rows.push(await row('--resume, finished', again, sent));
  } finally {
    for (const path of [sent, killed, sentReport, killedReport]) {
      await rm(path, { recursive: true, force: true });
    }
  }
  return rows;
}

/**
 * The same runs with the state in PostgreSQL: the send, a send killed at 40% and its --resume, and
 * --resume of the finished campaign. Each campaign goes to a simulator of its own that books every
 * MessageId, and the rows say how many it accepted twice.
 */
async function runPostgres(node, records, server) {
  const input = join(out, `scale-${records}.csv`);
  const tag = `${node.version}-${records}-pg`;
  const opts = { node: node.path, memoryLimitMb };
  const rows = [];
  const reports = [join(out, `send-${tag}.report.csv`), join(out, `killed-${tag}.report.csv`)];
  const stateDirs = [join(out, `state-send-${tag}`), join(out, `state-killed-${tag}`)];
  const [sent, killed] = await Promise.all([ledgered(`sent-${tag}`), ledgered(`killed-${tag}`)]);
  try {
    const env = { SMS_SEND_STATE_URL: await server.database() };
    const killedEnv = { SMS_SEND_STATE_URL: await server.database() };
    const args = (sim, report) => sendArgv(input, sim.url, 4, report);
    const row = async (what, run, sim) => ({
      node: node.version,
      records,
      run: `${what} (PostgreSQL)`,
      wallS: round(run.ms / 1000, 1),
      cpuUsPerRecord: round(run.cpuUs / records, 2),
      peakRssMb: round(run.rssMb),
      journalBytesPerRecord: null,
      ...(sim ? { twice: (await sim.stats()).duplicates } : {}),
      ...(run.code !== undefined && run.code !== 0 ? { exitCode: run.code } : {}),
      ...(memoryLimitMb === undefined ? {} : { memoryLimitMb, oomKilled: run.oomKilled === true }),
    });
    say(`  Node.js ${node.version}, ${fmt(records)} records, state in PostgreSQL: send…`);
    const send = await measure(`send-${tag}`, args(sent, reports[0]), {
      ...opts,
      stateDir: stateDirs[0],
      env,
    });
    rows.push(await row('send', send, sent));
    const whole = await fileSize(reports[0]);
    say(`  Node.js ${node.version}, ${fmt(records)} records, state in PostgreSQL: killed at 40%…`);
    const kill = await measure(`killed-${tag}`, args(killed, reports[1]), {
      ...opts,
      stateDir: stateDirs[1],
      env: killedEnv,
      killWhen: async () => (await fileSize(reports[1])) >= whole * KILL_AT,
    });
    rows.push(await row('send, killed at 40%', kill));
    // The killed run's lease runs out (30 s by default) before another run may take it over.
    await new Promise((resolve) => setTimeout(resolve, 31_000));
    say(`  Node.js ${node.version}, ${fmt(records)} records, state in PostgreSQL: --resume…`);
    const resume = await measure(`resume-${tag}`, [...args(killed, reports[1]), '--resume'], {
      ...opts,
      stateDir: stateDirs[1],
      env: killedEnv,
      exitCodes: [1],
      mayFail: true,
    });
    rows.push(await row('--resume after the kill', resume, killed));
    say(
      `  Node.js ${node.version}, ${fmt(records)} records, state in PostgreSQL: --resume, finished…`,
    );
    const again = await measure(`finished-${tag}`, [...args(sent, reports[0]), '--resume'], {
      ...opts,
      stateDir: stateDirs[0],
      env,
      exitCodes: [1, 2],
      mayFail: true,
    });
    rows.push(await row('--resume, finished', again, sent));
  } finally {
    sent.stop();
    killed.stop();
    for (const path of [...reports, ...stateDirs]) await rm(path, { recursive: true, force: true });
  }
  return rows;
}

/** A simulator of a campaign's own, booking every MessageId it accepts (its /stats counts them). */
async function ledgered(label) {
  const simulator = await startSimulator(['--ledger', join(out, `${label}.ledger.ndjson`)]);
  return {
    ...simulator,
    async stats() {
      return (await fetch(`${simulator.url}/stats`)).json();
    },
  };
}

/**
 * The memory and journal budgets, judged on each Node.js line's rows: inside a memory limit,
 * every run at the largest size finishes, never killed for memory; without one, peak RSS grows
 * at most 10 bytes a record from the smallest size to the largest.
 */
function judge(rows) {
  const budgets = [];
  const [small, big] = [Math.min(...sizes), Math.max(...sizes)];
  for (const version of new Set(rows.map((r) => r.node))) {
    // PostgreSQL's rows are judged by judgePostgres, at the size they ran.
    const runs = rows.map((r) => r.run).filter((run) => !run.endsWith('(PostgreSQL)'));
    for (const run of new Set(runs)) {
      const at = (n) => rows.find((r) => r.node === version && r.run === run && r.records === n);
      const [a, b] = [at(small), at(big)];
      if (b && memoryLimitMb !== undefined) {
        budgets.push({
          budget: `${run}, Node.js ${version}: finishes inside ${memoryLimitMb} MiB at ${fmt(big)} records, never killed for memory`,
          measured: b.oomKilled
            ? 'killed for memory'
            : b.failed
              ? `exit ${b.exitCode}`
              : `peak ${b.peakRssMb} MB`,
          met: !b.oomKilled && (b.exitCode === undefined || run === '--resume after the kill'),
        });
      }
      if (a && b && a !== b && memoryLimitMb === undefined) {
        const perRecord = round(((b.peakRssMb - a.peakRssMb) * 1024 * 1024) / (big - small), 1);
        budgets.push({
          budget: `${run}, Node.js ${version}: peak RSS grows ≤ 10 bytes a record from ${fmt(small)} to ${fmt(big)}`,
          measured: perRecord,
          met: perRecord <= 10,
        });
      }
      if (b?.firstRequestS !== undefined) {
        const allowed = round((2 * b.settled) / 1_000_000, 2);
        budgets.push({
          budget: `${run}, Node.js ${version}: first request within 2 s a million settled records (${fmt(b.settled)} settled: ${allowed} s)`,
          measured: b.firstRequestS,
          met: b.firstRequestS <= allowed,
        });
      }
      if (b?.twice !== undefined) {
        budgets.push({
          budget: `${run}, Node.js ${version}: no message the simulator accepted twice`,
          measured: b.twice,
          met: b.twice === 0,
        });
      }
      // A killed run's journal is a campaign's 40%; a finished one's was judged with its send.
      const whole = run === 'send' || run === '--resume after the kill';
      if (whole && b?.journalBytesPerRecord !== null && b?.journalBytesPerRecord !== undefined) {
        budgets.push({
          budget: `${run}, Node.js ${version}: journal ≤ 40 bytes a record at ${fmt(big)}`,
          measured: b.journalBytesPerRecord,
          met: b.journalBytesPerRecord <= 40,
        });
      }
    }
  }
  return [...budgets, ...judgePostgres(rows)];
}

/**
 * PostgreSQL's budgets, at the largest size it ran: every run finishes inside the memory limit
 * (with one), and the resume after a kill takes at most 1.5× the state directory's.
 */
function judgePostgres(rows) {
  const budgets = [];
  const pg = rows.filter((r) => r.run.endsWith('(PostgreSQL)'));
  const big = Math.max(...pg.map((r) => r.records));
  for (const r of pg.filter((row) => row.records === big)) {
    if (memoryLimitMb !== undefined) {
      budgets.push({
        budget: `${r.run}, Node.js ${r.node}: finishes inside ${memoryLimitMb} MiB at ${fmt(big)} records, never killed for memory`,
        measured: r.oomKilled ? 'killed for memory' : `peak ${r.peakRssMb} MB`,
        // A resume after a kill ends with exit 1: what was in flight at the kill is unknown.
        met: !r.oomKilled && (r.exitCode === undefined || r.run.startsWith('--resume after')),
      });
    }
    const folder = rows.find(
      (f) => f.node === r.node && f.records === big && f.run === r.run.replace(' (PostgreSQL)', ''),
    );
    if (r.run.startsWith('--resume after the kill') && folder) {
      budgets.push({
        budget: `${r.run}, Node.js ${r.node}: within 1.5× the state directory's time at ${fmt(big)} records`,
        measured: round(r.wallS / folder.wallS, 2),
        met: r.wallS <= 1.5 * folder.wallS,
      });
    }
  }
  return budgets;
}

function print(result) {
  const head = [
    'Node.js',
    'records',
    'run',
    'wall',
    'CPU µs/record',
    'peak RSS',
    'journal B/record',
    'first request',
    'sent twice',
    ...(memoryLimitMb === undefined ? [] : [`in ${memoryLimitMb} MiB`]),
  ];
  const table = [head];
  for (const r of result.rows) {
    table.push([
      r.node,
      fmt(r.records),
      r.exitCode === undefined ? r.run : `${r.run} (exit ${r.exitCode})`,
      `${r.wallS.toFixed(1)} s`,
      r.cpuUsPerRecord.toFixed(2),
      `${r.peakRssMb} MB`,
      r.journalBytesPerRecord === null ? '' : r.journalBytesPerRecord.toFixed(1),
      r.firstRequestS === undefined ? '' : `${r.firstRequestS.toFixed(2)} s`,
      r.twice === undefined ? '' : String(r.twice),
      ...(memoryLimitMb === undefined ? [] : [r.oomKilled ? 'killed for memory' : 'finished']),
    ]);
  }
  const widths = head.map((_, i) => Math.max(...table.map((row) => row[i].length)));
  const line = (row) => `| ${row.map((cell, i) => cell.padEnd(widths[i])).join(' | ')} |`;
  say('');
  say(line(head));
  say(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const row of table.slice(1)) say(line(row));
  say('');
  for (const b of result.budgets) say(`${b.met ? 'met   ' : 'MISSED'}  ${b.budget}: ${b.measured}`);
  for (const reason of result.skipped) say(`skipped another Node.js: ${reason}`);
  say(
    `load average ${result.loadAverage.before.join(' ')} before, ${result.loadAverage.after.join(' ')} after, on ${cpus().length} cores`,
  );
}

const lines = otherNodes(args);
if (lines.nodes.length === 0 && lines.skipped.length === 0) {
  say('other Node.js lines: none given (--node=PATH or BENCH_NODES), this one only');
}
await rm(out, { recursive: true, force: true });
await mkdir(out, { recursive: true });
const loadBefore = loadavg();
say(
  `sms-send scale benchmark: ${sizes.map(fmt).join(' and ')} records; ${cpus().length} cores, ` +
    `load average ${loadBefore.map((l) => l.toFixed(2)).join(' ')}` +
    (memoryLimitMb === undefined ? '' : `; each run inside a ${memoryLimitMb} MiB memory cgroup`),
);
const rows = [];
const simulator = await startSimulator();
const server = postgres ? await startPostgres({ durable: true }) : undefined;
try {
  for (const node of [{ version: process.version }, ...lines.nodes]) {
    for (const records of sizes) {
      rows.push(...(await runSize(node, records, simulator)));
      if (server && records <= POSTGRES_UP_TO) {
        rows.push(...(await runPostgres(node, records, server)));
      }
    }
  }
} finally {
  simulator.stop();
  await server?.stop();
  await rm(out, { recursive: true, force: true });
}
const result = {
  rows,
  budgets: judge(rows),
  skipped: lines.skipped,
  loadAverage: {
    before: loadBefore.map((l) => round(l, 2)),
    after: loadavg().map((l) => round(l, 2)),
  },
};
if (json) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
else print(result);
