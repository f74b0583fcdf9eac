// What a run pays before its records, on each Node.js line: `--help`, `check`, a one-record and a
// 20,000-record send, each cold (an empty compile cache, as on a fresh CI runner) and warm, as CPU
// beyond `node -e 0` probed alike (docs/benchmark.md#budgets).
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { bin, measure, out, sendArgv, writeCampaign } from './children.js';

const RUNS = 5;
/** A small campaign, the common case: what a run costs before anything scales. */
export const FIXED_RECORDS = 20_000;
/** The lines the start-up budgets are judged on; the others (Node 20, past its end of life) are reported. */
const JUDGED = new Set([22, 24]);

const round = (n) => Math.round(n);

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/**
 * Each line's start-up: `lines` are `{ version, path }` (no path: the Node.js running the bench).
 * Cold runs get a TMPDIR of their own, so the compile cache sms-send enables (in os.tmpdir()) starts
 * empty and is written as on a fresh runner; warm runs share one filled by a run before them.
 */
export async function startUpByLine(url, lines, say) {
  const one = join(out, 'start-one.csv');
  const small = join(out, `start-${FIXED_RECORDS}.csv`);
  await writeCampaign(one, 1);
  await writeCampaign(small, FIXED_RECORDS);
  const measured = [];
  for (const line of lines) {
    say(`  Node.js ${line.version}: --help, check, 1 and ${FIXED_RECORDS} records, cold and warm…`);
    measured.push(await startUp(line, url, { one, small }));
  }
  return measured;
}

async function startUp(line, url, inputs) {
  const tag = line.version;
  let runs = 0;
  const run = async (argv, tmp) => {
    const label = `start-${tag}-${runs++}`;
    const withReport = argv.map((a) => (a === '{report}' ? join(out, `${label}.report.csv`) : a));
    return measure(label, withReport, { node: line.path, env: { TMPDIR: tmp } });
  };
  const medianOf = async (argv, tmpFor) => {
    const results = [];
    for (let i = 0; i < RUNS; i++) results.push(await run(argv, await tmpFor(i)));
    return {
      cpuMs: median(results.map((r) => r.cpuUs)) / 1000,
      rssMb: median(results.map((r) => r.rssMb)),
    };
  };
  const fresh = async () => {
    const dir = join(out, `tmp-${tag}-${runs}`);
    await mkdir(dir, { recursive: true });
    return dir;
  };
  const warmDir = join(out, `tmp-${tag}-warm`);
  await mkdir(warmDir, { recursive: true });
  const node = await medianOf(['-e', '0'], fresh);
  const commands = {
    help: [bin, '--help'],
    check: [bin, 'check', '--endpoint', url],
    send1: sendArgv(inputs.one, url, 4, '{report}'),
    send20k: sendArgv(inputs.small, url, 4, '{report}'),
  };
  const figures = {
    version: line.version,
    major: majorOf(line.version),
    nodeCpuMs: round(node.cpuMs),
  };
  figures.nodeRssMb = round(node.rssMb);
  for (const [name, argv] of Object.entries(commands)) {
    const cold = await medianOf(argv, fresh);
    await run(argv, warmDir);
    const warm = await medianOf(argv, async () => warmDir);
    figures[name] = {
      coldMs: round(cold.cpuMs - node.cpuMs),
      warmMs: round(warm.cpuMs - node.cpuMs),
      coldRatio: Number((cold.cpuMs / node.cpuMs).toFixed(2)),
      coldRssMb: round(cold.rssMb - node.rssMb),
    };
  }
  return figures;
}

function majorOf(version) {
  return Number(/^v(\d+)/.exec(version)?.[1]);
}

/** The start-up budgets, judged on Node 22 and 24 (each line measured), the others shown beside them. */
export function startUpBudgets(lines) {
  const judged = lines.filter((line) => JUDGED.has(line.major));
  if (judged.length === 0) {
    return [
      {
        budget:
          'start-up budgets (judged on Node.js 22 and 24): neither measured; give --node=PATH',
        measured: lines.map((l) => l.version).join(', '),
        met: false,
      },
    ];
  }
  return judged.flatMap((line) => [
    {
      budget: `${line.version}: --help ≤ 2.5× node -e 0, CPU, cold`,
      measured: line.help.coldRatio,
      met: line.help.coldRatio <= 2.5,
    },
    {
      budget: `${line.version}: check ≤ 150 ms CPU beyond node -e 0, cold`,
      measured: line.check.coldMs,
      met: line.check.coldMs <= 150,
    },
    {
      budget: `${line.version}: a ${FIXED_RECORDS.toLocaleString('en-US')}-record send ≤ 1,000 ms CPU beyond node -e 0, cold`,
      measured: line.send20k.coldMs,
      met: line.send20k.coldMs <= 1000,
    },
    {
      budget: `${line.version}: a ${FIXED_RECORDS.toLocaleString('en-US')}-record send ≤ 100 MB peak RSS beyond node -e 0, cold`,
      measured: line.send20k.coldRssMb,
      met: line.send20k.coldRssMb <= 100,
    },
  ]);
}

/** One table row per line and command: `[measure, cold, warm, peak RSS]`. */
export function startUpRows(lines) {
  const names = {
    help: '--help',
    check: 'check',
    send1: '1-record send',
    send20k: '20,000-record send',
  };
  const rows = [['beyond node -e 0, CPU (median of 5)', 'cold', 'warm', 'peak RSS beyond, cold']];
  for (const line of lines) {
    rows.push([
      `${line.version}: node -e 0 itself`,
      `${line.nodeCpuMs} ms`,
      '',
      `${line.nodeRssMb} MB`,
    ]);
    for (const [name, label] of Object.entries(names)) {
      const f = line[name];
      const ratio = name === 'help' ? ` (${f.coldRatio}×)` : '';
      rows.push([
        `${line.version}: ${label}`,
        `${f.coldMs} ms${ratio}`,
        `${f.warmMs} ms`,
        `${f.coldRssMb} MB`,
      ]);
    }
  }
  return rows;
}
