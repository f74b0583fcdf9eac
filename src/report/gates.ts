// `report --fail-under`: shares of a report's rows held against thresholds, for a CI step to pass or fail.
import { UsageError } from '../shared/errors.js';
import { OUTCOMES, type Outcome } from '../message/outcome.js';
import type { ReportCounts } from './read.js';

/** What a gate can measure: an outcome's share of all rows, or the delivered share of accepted rows. */
export type GateName = Outcome | 'delivered';

const GATE_NAMES: readonly GateName[] = [...OUTCOMES, 'delivered'];

/**
 * One threshold as written. Kept as an exact decimal (`99.5%` is 995/1000) so a share exactly
 * at the threshold passes, whatever floating point would make of it.
 */
export interface Gate {
  name: GateName;
  /** The threshold as a percentage, e.g. 99.5. */
  percent: number;
  /** The threshold as the fraction numerator / denominator, both whole. */
  numerator: bigint;
  denominator: bigint;
}

/** One gate's verdict. */
export interface GateResult {
  name: GateName;
  /** The threshold, a percentage. */
  threshold: number;
  /** The measured share, a percentage (0 when there is nothing to measure). */
  share: number;
  /** Rows counted, out of `of`. */
  count: number;
  of: number;
  passed: boolean;
}

export interface GatesVerdict {
  passed: boolean;
  gates: GateResult[];
}

const HOW = 'a percentage such as 99% or 99.5%, or a fraction such as 0.99';

/** `accepted=99%,delivered=95%` → gates; anything malformed is a usage error naming the part. */
export function parseGates(spec: string): Gate[] {
  const gates: Gate[] = [];
  if (spec.trim() === '') {
    throw new UsageError('--fail-under is empty: give name=threshold, e.g. accepted=99%');
  }
  for (const raw of spec.split(',')) {
    const part = raw.trim();
    const at = part.indexOf('=');
    if (at < 0) {
      throw new UsageError(
        `--fail-under "${part}": must be name=threshold, e.g. accepted=99% or delivered=95%`,
      );
    }
    const name = part.slice(0, at).trim().toLowerCase();
    if (!(GATE_NAMES as readonly string[]).includes(name)) {
      throw new UsageError(
        `--fail-under "${part}": unknown share "${name}"; known: ${GATE_NAMES.join(', ')}`,
      );
    }
    if (gates.some((g) => g.name === name)) {
      throw new UsageError(`--fail-under: ${name} is given twice`);
    }
    const threshold = parseThreshold(part.slice(at + 1).trim());
    if (typeof threshold === 'string') {
      throw new UsageError(`--fail-under "${part}": the threshold ${threshold}; write ${HOW}`);
    }
    gates.push({ name: name as GateName, ...threshold });
  }
  return gates;
}

/** A threshold, or why it is not one. */
function parseThreshold(text: string): Omit<Gate, 'name'> | string {
  if (text === '') return 'is missing';
  const match = /^(\d+)(?:\.(\d+))?(%?)$/.exec(text);
  if (!match) return `"${text}" is not a number`;
  const [, whole, fraction = '', sign] = match;
  const digits = BigInt(`${whole}${fraction}`);
  let numerator = digits;
  let denominator = 10n ** BigInt(fraction.length);
  let places = fraction.length;
  if (sign === '%') denominator *= 100n;
  else if (digits > denominator) {
    return `"${text}" is more than 1 (a percentage needs its %)`;
  } else {
    // A fraction: 0.995 is 99.5%, two places fewer as a percentage.
    places = Math.max(0, places - 2);
  }
  if (numerator > denominator) return `"${text}" is more than 100%`;
  const percent = Number((numerator * 100n * 10n ** BigInt(places)) / denominator) / 10 ** places;
  // Reduced, so the comparison's products stay small.
  const divisor = gcd(numerator, denominator);
  numerator /= divisor;
  denominator /= divisor;
  return { percent, numerator, denominator };
}

function gcd(a: bigint, b: bigint): bigint {
  while (b !== 0n) [a, b] = [b, a % b];
  return a === 0n ? 1n : a;
}

/**
 * The count and the whole a gate measures: an outcome over every row read, `delivered` over the
 * accepted rows (a delivery report only ever follows an accepted message).
 */
function measure(name: GateName, counts: ReportCounts): { count: number; of: number } {
  if (name === 'delivered') return { count: counts.delivered, of: counts.byOutcome.accepted };
  return { count: counts.byOutcome[name], of: counts.total };
}

/** Each gate against the report's counts; nothing to measure (0 rows) passes only a 0% gate. */
export function judgeGates(counts: ReportCounts, gates: readonly Gate[]): GatesVerdict {
  const results = gates.map((gate): GateResult => {
    const { count, of } = measure(gate.name, counts);
    // count / of < numerator / denominator, in whole numbers.
    const below =
      of === 0
        ? gate.numerator > 0n
        : BigInt(count) * gate.denominator < gate.numerator * BigInt(of);
    return {
      name: gate.name,
      threshold: gate.percent,
      share: of === 0 ? 0 : (count * 100) / of,
      count,
      of,
      passed: !below,
    };
  });
  return { passed: results.every((r) => r.passed), gates: results };
}

/**
 * A share as text, rounded down to one place more than its threshold has (at least one), so a
 * share below the threshold never reads as equal to it: 97.5%, 99.94%.
 */
export function formatShare(count: number, of: number, threshold: number): string {
  if (of === 0) return '0%';
  const places = Math.max(1, (String(threshold).split('.')[1]?.length ?? 0) + 1);
  const scale = 10 ** places;
  const floored = Math.floor((count * 100 * scale) / of) / scale;
  return `${floored}%`;
}
