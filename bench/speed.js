// npm run bench: what a record costs (client CPU, wall clock, memory) against a bare undici loop, and --help start-up.
// Usage: node bench/run.js [records=200000] [--json] [--skip-million | --rss-records=N] [--node=PATH]
// Every child (bare loop, sms-send send, dry run) is measured the same way: its own user+sys CPU
// and peak RSS from process.resourceUsage() at exit (bench/probe.js), and msg/s over its whole
// life, start to exit. The simulator runs in a process of its own and is not counted.
import { mkdir, rm } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
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
import { startUpBudgets, startUpByLine, startUpRows } from './start-up.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const bareLoop = join(root, 'bench', 'bare-loop.js');
const durableLoop = join(root, 'bench', 'durable-loop.js');
const args = process.argv.slice(2);
const records = Number(args.find((a) => /^\d+$/.test(a)) ?? 200_000);
const json = args.includes('--json');
const bigRecords = args.includes('--skip-million')
  ? 0
  : Number(
      (args.find((a) => a.startsWith('--rss-records=')) ?? '--rss-records=1000000').split('=')[1],
    );
const CONCURRENCIES = [4, 8];
/** The batch sizes the PostgreSQL state is measured at: the default, and ten times the requests. */
const POSTGRES_BATCHES = [100, 10];
// With --json, stdout carries only the document; progress goes to stderr.
const say = (line) => (json ? process.stderr : process.stdout).write(`${line}\n`);

const send = (input, url, concurrency, label, node, extra = []) =>
  measure(
    label,
    [...sendArgv(input, url, concurrency, join(out, `${label}.report.csv`)), ...extra],
    {
      node,
    },
  );

const round = (n, digits = 0) => Number(n.toFixed(digits));
const fmt = (n) => Math.round(n).toLocaleString('en-US');
const perRecord = (run, count) => run.cpuUs / count;

await rm(out, { recursive: true, force: true });
await mkdir(out, { recursive: true });
const input = join(out, `bench-${records}.csv`);
await writeCampaign(input, records);
const loadBefore = loadavg();
say(
  `sms-send benchmark: ${fmt(records)} records, batches of 100, concurrency ${CONCURRENCIES.join(' and ')}; ` +
    `${cpus().length} cores, load average ${loadBefore.map((l) => l.toFixed(2)).join(' ')}`,
);

// million stays null when the 1,000,000-record run is skipped.
const result = { records, bare: {}, durable: {}, send: {}, dryRun: undefined, million: null };
const simulator = await startSimulator();
try {
  for (const concurrency of CONCURRENCIES) {
    say(`  bare loop, concurrency ${concurrency}…`);
    const bare = await measure(`bare-${concurrency}`, [
      bareLoop,
      simulator.url,
      String(records),
      String(concurrency),
    ]);
    const { loopMs } = JSON.parse(bare.stdout);
    result.bare[concurrency] = {
      // Start to exit, building its batches included: the same span sms-send's figure covers.
      msgPerSec: round((records * 1000) / bare.ms),
      // The request loop alone, for reference: the network part of the floor.
      loopMsgPerSec: round((records * 1000) / loopMs),
      cpuUsPerRecord: round(perRecord(bare, records), 2),
      peakRssMb: round(bare.rssMb),
    };
    say(`  journaled loop, concurrency ${concurrency}…`);
    const folder = join(out, `durable-${concurrency}`);
    await mkdir(folder);
    const durable = await measure(`durable-${concurrency}`, [
      durableLoop,
      simulator.url,
      String(records),
      String(concurrency),
      folder,
    ]);
    result.durable[concurrency] = {
      ms: durable.ms,
      cpuUs: durable.cpuUs,
      msgPerSec: round((records * 1000) / durable.ms),
      cpuUsPerRecord: round(perRecord(durable, records), 2),
      throughputRatio: round((records * 1000) / durable.ms / result.bare[concurrency].msgPerSec, 2),
      cpuRatio: round(perRecord(durable, records) / result.bare[concurrency].cpuUsPerRecord, 2),
    };
    say(`  sms-send, concurrency ${concurrency}…`);
    const full = await send(input, simulator.url, concurrency, `send-${concurrency}`);
    const msgPerSec = (records * 1000) / full.ms;
    const cpuUsPerRecord = perRecord(full, records);
    result.send[concurrency] = {
      msgPerSec: round(msgPerSec),
      cpuUsPerRecord: round(cpuUsPerRecord, 2),
      throughputRatio: round(msgPerSec / result.bare[concurrency].msgPerSec, 2),
      cpuRatio: round(cpuUsPerRecord / result.bare[concurrency].cpuUsPerRecord, 2),
      peakRssMb: round(full.rssMb),
    };
  }
  if (!args.includes('--skip-postgres')) {
    say('  sms-send with --state-url (PostgreSQL on this machine, fsync on), concurrency 4…');
    result.postgres = await postgresSends(input, simulator.url, result.send[4]);
  }
  say('  sms-send --dry-run…');
  const dry = await measure('dry-run', [bin, input, '--dry-run', '--quiet']);
  const floor = Math.min(...CONCURRENCIES.map((c) => result.bare[c].cpuUsPerRecord));
  result.dryRun = {
    cpuUsPerRecord: round(perRecord(dry, records), 2),
    cpuRatio: round(perRecord(dry, records) / floor, 2),
  };
  // The least a send that checks every record first and can be resumed costs here: the journaled
  // loop, plus the validation pass without a second process start (a one-record dry run's cost).
  const one = join(out, 'one.csv');
  await writeCampaign(one, 1);
  const start = await measure('dry-run-start', [bin, one, '--dry-run', '--quiet']);
  for (const c of CONCURRENCIES) {
    result.durable[c].validated = boundOf(result.durable[c], dry, start, result.bare[c]);
    result.send[c].vsBound = vsBound(result.send[c], result.durable[c].validated);
  }

  say(
    '  a gateway whose TransactionIds are random: journaled loop and sms-send, concurrency 4 and 8…',
  );
  result.random = await randomIds(input, dry, start);

  const lines = otherNodes(args);
  for (const reason of lines.skipped) say(`  skipped another Node.js: ${reason}`);
  result.start = await startUpByLine(
    simulator.url,
    [{ version: process.version }, ...lines.nodes],
    say,
  );
  for (const c of CONCURRENCIES) {
    delete result.durable[c].ms;
    delete result.durable[c].cpuUs;
  }

  if (bigRecords > 0) {
    say(`  writing ${fmt(bigRecords)} records…`);
    const big = join(out, `bench-${bigRecords}.csv`);
    await writeCampaign(big, bigRecords);
    say(`  sms-send, ${fmt(bigRecords)} records…`);
    const firstRequest = simulator.nextRequest();
    const run = await send(big, simulator.url, CONCURRENCIES[0], 'big');
    result.million = {
      records: bigRecords,
      firstRequestMs: round((await firstRequest) - run.startedAt),
      msgPerSec: round((bigRecords * 1000) / run.ms),
      cpuUsPerRecord: round(perRecord(run, bigRecords), 2),
      peakRssMb: round(run.rssMb),
    };
    result.nodes = await memoryByNode(big, simulator.url, run.rssMb);
    await rm(big, { force: true });
  }
} finally {
  simulator.stop();
}

/**
 * sms-send at concurrency 4 with its campaign state in PostgreSQL (a server of its own, on this
 * machine, syncing its commits as a real one does), against the same send with the state
 * directory at the same batch size: the budget is 0.8 of its msg/s at each batch size
 * (docs/benchmark.md#campaign-state-in-postgresql).
 */
async function postgresSends(campaign, url, folderAt100) {
  const server = await startPostgres({ durable: true });
  try {
    const rows = {};
    for (const batch of POSTGRES_BATCHES) {
      const size = ['--batch-size', String(batch)];
      const folder =
        batch === 100
          ? folderAt100
          : figures(await send(campaign, url, 4, `send-b${batch}`, undefined, size));
      const stateUrl = await server.database();
      const run = await send(campaign, url, 4, `send-postgres-b${batch}`, undefined, [
        ...size,
        '--state-url',
        stateUrl,
      ]);
      const pg = figures(run);
      rows[batch] = {
        ...pg,
        folderMsgPerSec: folder.msgPerSec,
        vsFolder: round(pg.msgPerSec / folder.msgPerSec, 2),
      };
    }
    return rows;
  } finally {
    await server.stop();
  }
}

/** A measured send's msg/s, CPU per record and peak RSS. */
function figures(run) {
  return {
    msgPerSec: round((records * 1000) / run.ms),
    cpuUsPerRecord: round(perRecord(run, records), 2),
    peakRssMb: round(run.rssMb),
  };
}

/**
 * The bound of docs/benchmark.md#budgets at one concurrency: the journaled loop plus the validation pass without
 * a second process start (the dry run less a one-record dry run), which no validated, journaled
 * send beats; as CPU per record and msg/s, and against the bare loop.
 */
function boundOf(durable, dry, start, bare) {
  const cpuUs = durable.cpuUs + dry.cpuUs - start.cpuUs;
  const ms = durable.ms + dry.ms - start.ms;
  return {
    cpuUsPerRecord: round(cpuUs / records, 2),
    msgPerSec: round((records * 1000) / ms),
    cpuRatio: bare ? round(cpuUs / records / bare.cpuUsPerRecord, 2) : undefined,
    throughputRatio: bare ? round((records * 1000) / ms / bare.msgPerSec, 2) : undefined,
  };
}

/** A send's CPU and msg/s against the bound: the figures the budgets are judged on. */
function vsBound(send, bound) {
  return {
    cpuRatio: round(send.cpuUsPerRecord / bound.cpuUsPerRecord, 2),
    throughputRatio: round(send.msgPerSec / bound.msgPerSec, 2),
  };
}

/**
 * The journaled loop and sms-send at concurrency 4 and 8 against a simulator whose TransactionIds
 * are 32 random hex digits, as a real gateway's may be: the journal cannot compress them.
 */
async function randomIds(campaign, dry, start) {
  const random = await startSimulator(['--transaction-ids', 'random']);
  const byConcurrency = {};
  try {
    for (const c of CONCURRENCIES) {
      const folder = join(out, `durable-random-${c}`);
      await mkdir(folder);
      const durable = await measure(`durable-random-${c}`, [
        durableLoop,
        random.url,
        String(records),
        String(c),
        folder,
      ]);
      const full = await send(campaign, random.url, c, `send-random-${c}`);
      const bound = boundOf(durable, dry, start);
      const sendFigures = {
        msgPerSec: round((records * 1000) / full.ms),
        cpuUsPerRecord: round(perRecord(full, records), 2),
        peakRssMb: round(full.rssMb),
      };
      byConcurrency[c] = {
        durable: {
          msgPerSec: round((records * 1000) / durable.ms),
          cpuUsPerRecord: round(perRecord(durable, records), 2),
        },
        send: { ...sendFigures, vsBound: vsBound(sendFigures, bound) },
        bound,
      };
    }
    return byConcurrency;
  } finally {
    random.stop();
  }
}

/**
 * Peak RSS of the big send and its dry run on this Node.js and on each other line given
 * (--node=PATH, BENCH_NODES); a line that is not found is named with the reason.
 */
async function memoryByNode(big, url, sendRssMb) {
  const lines = otherNodes(args);
  for (const reason of lines.skipped) say(`  skipped another Node.js: ${reason}`);
  if (lines.nodes.length === 0 && lines.skipped.length === 0) {
    say('  other Node.js lines: none given (--node=PATH or BENCH_NODES), this one only');
  }
  const byNode = [];
  for (const node of [{ version: process.version }, ...lines.nodes]) {
    say(`  Node.js ${node.version}: sms-send --dry-run, ${fmt(bigRecords)} records…`);
    const dry = await measure(`big-dry-${node.version}`, [bin, big, '--dry-run', '--quiet'], {
      node: node.path,
    });
    let sendRss = sendRssMb;
    if (node.path) {
      say(`  Node.js ${node.version}: sms-send, ${fmt(bigRecords)} records…`);
      sendRss = (await send(big, url, CONCURRENCIES[0], `big-${node.version}`, node.path)).rssMb;
    }
    byNode.push({
      version: node.version,
      sendRssMb: round(sendRss),
      dryRunRssMb: round(dry.rssMb),
    });
  }
  return { lines: byNode, skipped: lines.skipped };
}

result.loadAverage = {
  before: loadBefore.map((l) => round(l, 2)),
  after: loadavg().map((l) => round(l, 2)),
};

// The budgets of docs/benchmark.md#budgets, each with the figure it is judged on.
const PER_RECORD = 1.15;
const budgets = [
  ...CONCURRENCIES.map((c) => ({
    budget: `send CPU per record ≤ ${PER_RECORD}× the bound at concurrency ${c} (journaled loop + dry run)`,
    measured: result.send[c].vsBound.cpuRatio,
    met: result.send[c].vsBound.cpuRatio <= PER_RECORD,
  })),
  ...CONCURRENCIES.map((c) => ({
    budget: `send CPU per record ≤ ${PER_RECORD}× the bound, random TransactionIds, concurrency ${c}`,
    measured: result.random[c].send.vsBound.cpuRatio,
    met: result.random[c].send.vsBound.cpuRatio <= PER_RECORD,
  })),
  {
    budget: 'dry-run CPU per record ≤ 1.0× bare loop',
    measured: result.dryRun.cpuRatio,
    met: result.dryRun.cpuRatio <= 1.0,
  },
  ...CONCURRENCIES.map((c) => ({
    budget: `throughput ≥ 0.8× the bound at concurrency ${c}`,
    measured: result.send[c].vsBound.throughputRatio,
    met: result.send[c].vsBound.throughputRatio >= 0.8,
  })),
  ...CONCURRENCIES.map((c) => ({
    budget: `throughput ≥ 0.8× the bound, random TransactionIds, concurrency ${c}`,
    measured: result.random[c].send.vsBound.throughputRatio,
    met: result.random[c].send.vsBound.throughputRatio >= 0.8,
  })),
  ...startUpBudgets(result.start),
];
for (const [batch, pg] of Object.entries(result.postgres ?? {})) {
  budgets.push({
    budget: `with --state-url (PostgreSQL on this machine) ≥ 0.8× the state directory's msg/s, c4, batch size ${batch}`,
    measured: pg.vsFolder,
    met: pg.vsFolder >= 0.8,
  });
}
// Memory is judged at scale, inside 256 MiB and by its growth to 10,000,000 records (--scale);
// the figures of the 1,000,000-record run are shown, not judged.
result.budgets = budgets;
await rm(out, { recursive: true, force: true });

if (json) {
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
} else {
  const rows = [['measure', 'msg/s', 'CPU µs/record', 'vs bare loop', 'peak RSS']];
  for (const c of CONCURRENCIES) {
    const bare = result.bare[c];
    const durable = result.durable[c];
    const full = result.send[c];
    rows.push(
      [
        `bare undici loop, concurrency ${c}`,
        fmt(bare.msgPerSec),
        bare.cpuUsPerRecord.toFixed(2),
        `its loop alone: ${fmt(bare.loopMsgPerSec)} msg/s`,
        `${bare.peakRssMb} MB`,
      ],
      [
        `journaled loop, concurrency ${c}`,
        fmt(durable.msgPerSec),
        durable.cpuUsPerRecord.toFixed(2),
        `${durable.throughputRatio.toFixed(2)} msg/s, ${durable.cpuRatio.toFixed(2)} CPU`,
        '',
      ],
      [
        `bound (journaled loop + dry run), concurrency ${c}`,
        fmt(durable.validated.msgPerSec),
        durable.validated.cpuUsPerRecord.toFixed(2),
        `${durable.validated.throughputRatio.toFixed(2)} msg/s, ${durable.validated.cpuRatio.toFixed(2)} CPU`,
        '',
      ],
      [
        `sms-send, concurrency ${c}`,
        fmt(full.msgPerSec),
        full.cpuUsPerRecord.toFixed(2),
        `${full.throughputRatio.toFixed(2)} msg/s, ${full.cpuRatio.toFixed(2)} CPU; ` +
          `bound: ${full.vsBound.throughputRatio.toFixed(2)} msg/s, ${full.vsBound.cpuRatio.toFixed(2)} CPU`,
        `${full.peakRssMb} MB`,
      ],
    );
  }
  for (const [batch, pg] of Object.entries(result.postgres ?? {})) {
    rows.push([
      `sms-send --state-url (PostgreSQL), c4, batch size ${batch}`,
      fmt(pg.msgPerSec),
      pg.cpuUsPerRecord.toFixed(2),
      `${pg.vsFolder.toFixed(2)}× the state directory's ${fmt(pg.folderMsgPerSec)} msg/s`,
      `${pg.peakRssMb} MB`,
    ]);
  }
  for (const c of CONCURRENCIES) {
    const random = result.random[c];
    rows.push(
      [
        `journaled loop, random TransactionIds, c${c}`,
        fmt(random.durable.msgPerSec),
        random.durable.cpuUsPerRecord.toFixed(2),
        '',
        '',
      ],
      [
        `bound, random TransactionIds, c${c}`,
        fmt(random.bound.msgPerSec),
        random.bound.cpuUsPerRecord.toFixed(2),
        '',
        '',
      ],
      [
        `sms-send, random TransactionIds, c${c}`,
        fmt(random.send.msgPerSec),
        random.send.cpuUsPerRecord.toFixed(2),
        `bound: ${random.send.vsBound.throughputRatio.toFixed(2)} msg/s, ${random.send.vsBound.cpuRatio.toFixed(2)} CPU`,
        `${random.send.peakRssMb} MB`,
      ],
    );
  }
  rows.push([
    'sms-send --dry-run',
    '',
    result.dryRun.cpuUsPerRecord.toFixed(2),
    `${result.dryRun.cpuRatio.toFixed(2)} CPU`,
    '',
  ]);
  if (result.million) {
    rows.push([
      `sms-send, ${fmt(result.million.records)} records`,
      fmt(result.million.msgPerSec),
      result.million.cpuUsPerRecord.toFixed(2),
      `first request after ${fmt(result.million.firstRequestMs)} ms`,
      `${result.million.peakRssMb} MB`,
    ]);
    for (const line of result.nodes.lines) {
      rows.push([
        `Node.js ${line.version}, ${fmt(result.million.records)} records`,
        '',
        '',
        `send / dry run`,
        `${line.sendRssMb} / ${line.dryRunRssMb} MB`,
      ]);
    }
  }
  say('');
  printTable(rows);
  say('');
  printTable(startUpRows(result.start));
  say('');
  for (const b of budgets) {
    say(`${b.met ? 'met   ' : 'MISSED'}  ${b.budget}: ${b.measured}`);
  }
  if (!result.million)
    say(
      '(the 1,000,000-record run was skipped: no peak RSS at that size, no time to first request)',
    );
  say(
    `load average ${result.loadAverage.before.join(' ')} before, ${result.loadAverage.after.join(' ')} after, on ${cpus().length} cores`,
  );
}

/** A markdown table of `rows`, the first its header, columns padded to their widest cell. */
function printTable(rows) {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((row) => row[i].length)));
  const line = (row) => `| ${row.map((cell, i) => cell.padEnd(widths[i])).join(' | ')} |`;
  say(line(rows[0]));
  say(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const row of rows.slice(1)) say(line(row));
}
