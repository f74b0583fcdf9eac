// Cost of recipient validation per number (normalizeMsisdn from dist/), so metadata choices are measured.
// Usage: npm run build && node bench/msisdn.js [numbers=100000]
import { performance } from 'node:perf_hooks';

const count = Number(process.argv[2] ?? 100_000);
const loadStart = performance.now();
const { normalizeMsisdn } = await import('../dist/message/msisdn.js');
const loadMs = performance.now() - loadStart;

// A campaign-like mix: mostly Norwegian mobiles in the spellings users write, some national
// numbers with --country, some foreign mobiles, some numbers that must be refused.
const foreign = ['+46 70 123 45 67', '+44 7400 123456', '+45 20 12 34 56', '+358 40 1234567'];
const refused = ['+47 22 12 34 56', '+800 1234 5678', '+44 20 7946 0958', '+47 123'];
function sample(i) {
  const n = 40_000_000 + ((i * 7919) % 9_000_000);
  const d = String(n + (i % 2 === 0 ? 0 : 50_000_000));
  switch (i % 10) {
    case 0:
      return [`+47 ${d.slice(0, 3)} ${d.slice(3, 5)} ${d.slice(5)}`];
    case 1:
      return [`0047${d}`];
    case 2:
      return [d, 'NO'];
    case 3:
      return [foreign[Math.floor(i / 10) % foreign.length]];
    case 4:
      return [refused[Math.floor(i / 10) % refused.length]];
    default:
      return [`47${d}`];
  }
}
const inputs = Array.from({ length: count }, (_, i) => sample(i));

let ok = 0;
for (const [raw, country] of inputs.slice(0, 10_000)) if (normalizeMsisdn(raw, country).ok) ok++;
ok = 0;
// CPU time as well as wall time: on a shared machine the CPU figure is the steadier one.
const start = performance.now();
const cpu = process.cpuUsage();
for (const [raw, country] of inputs) if (normalizeMsisdn(raw, country).ok) ok++;
const used = process.cpuUsage(cpu);
const ms = performance.now() - start;
const perNumber = (µs) => (µs / count).toFixed(2);
console.log(
  `${count} numbers: ${perNumber(ms * 1000)} µs/number wall, ${perNumber(used.user + used.system)} µs CPU (${ok} accepted); module load ${loadMs.toFixed(1)} ms`,
);
