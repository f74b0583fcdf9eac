// `report --fail-under`: thresholds parsed exactly, shares judged at, above and below them, malformed specs refused.
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/shared/errors.js';
import { formatShare, judgeGates, parseGates } from '../../src/report/gates.js';
import type { ReportCounts } from '../../src/report/read.js';
import { OUTCOMES, type Outcome } from '../../src/message/outcome.js';

/** A report's counts: the outcomes given, every other 0; `delivered` of the accepted rows. */
function counts(byOutcome: Partial<Record<Outcome, number>>, delivered = 0): ReportCounts {
  const all = Object.fromEntries(OUTCOMES.map((o) => [o, byOutcome[o] ?? 0])) as Record<
    Outcome,
    number
  >;
  return {
    path: 'r.csv',
    format: 'csv',
    total: Object.values(all).reduce((a, b) => a + b, 0),
    byOutcome: all,
    suppressed: 0,
    sentBefore: 0,
    byStatusCode: {},
    byDeliveryStatus: {},
    delivered,
    awaitingDeliveryReport: 0,
    otherOutcome: 0,
    unreadable: 0,
  };
}

describe('parseGates', () => {
  it.each([
    ['accepted=99%', [['accepted', 99]]],
    ['accepted=99.5%', [['accepted', 99.5]]],
    ['accepted=0.995', [['accepted', 99.5]]],
    ['accepted=1', [['accepted', 100]]],
    ['accepted=0%', [['accepted', 0]]],
    [
      'Accepted = 100% , delivered=95%',
      [
        ['accepted', 100],
        ['delivered', 95],
      ],
    ],
    [
      'failed=0.5,unknown=12.25%',
      [
        ['failed', 50],
        ['unknown', 12.25],
      ],
    ],
  ])('%s', (spec, expected) => {
    expect(parseGates(spec).map((g) => [g.name, g.percent])).toEqual(expected);
  });

  it.each([
    ['', 'is empty'],
    ['accepted', '"accepted": must be name=threshold'],
    [
      'acepted=99%',
      'unknown share "acepted"; known: accepted, rejected, invalid, failed, unknown, skipped, delivered',
    ],
    ['accepted=', 'the threshold is missing'],
    ['accepted=abc', '"abc" is not a number'],
    ['accepted=-1%', '"-1%" is not a number'],
    ['accepted=99', '"99" is more than 1 (a percentage needs its %)'],
    ['accepted=100.5%', '"100.5%" is more than 100%'],
    ['accepted=99%,accepted=98%', 'accepted is given twice'],
    ['accepted=99%;delivered=95%', '"99%;delivered=95%" is not a number'],
  ])('refuses %j: %s', (spec, reason) => {
    const error = (() => {
      try {
        parseGates(spec);
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).exitCode).toBe(2);
    expect((error as UsageError).message).toContain(reason);
  });
});

describe('judgeGates', () => {
  it.each([
    // name, spec, counts, passed, count, of
    ['above', 'accepted=99%', counts({ accepted: 100 }), true, 100, 100],
    ['equal', 'accepted=97.5%', counts({ accepted: 39, rejected: 1 }), true, 39, 40],
    ['below', 'accepted=99%', counts({ accepted: 39, rejected: 1 }), false, 39, 40],
    [
      'equal, as a fraction',
      'accepted=0.995',
      counts({ accepted: 199, failed: 1 }),
      true,
      199,
      200,
    ],
    ['just below', 'accepted=99.9%', counts({ accepted: 9989, unknown: 11 }), false, 9989, 10000],
    ['exactly 99.9%', 'accepted=99.9%', counts({ accepted: 9990, unknown: 10 }), true, 9990, 10000],
    ['another outcome', 'rejected=10%', counts({ accepted: 95, rejected: 5 }), false, 5, 100],
    [
      'delivered: of the accepted rows',
      'delivered=95%',
      counts({ accepted: 20, failed: 20 }, 19),
      true,
      19,
      20,
    ],
    ['delivered below', 'delivered=95%', counts({ accepted: 40 }, 37), false, 37, 40],
    ['nothing to measure', 'delivered=1%', counts({ failed: 3 }), false, 0, 0],
    ['nothing to measure, 0%', 'delivered=0%', counts({ failed: 3 }), true, 0, 0],
  ] as const)('%s', (_, spec, report, passed, count, of) => {
    const verdict = judgeGates(report, parseGates(spec));
    expect(verdict.gates).toEqual([
      expect.objectContaining({ passed, count, of, threshold: parseGates(spec)[0]!.percent }),
    ]);
    expect(verdict.passed).toBe(passed);
  });

  it('fails when any of several gates fails, and says which', () => {
    const verdict = judgeGates(
      counts({ accepted: 39, rejected: 1 }, 30),
      parseGates('accepted=95%,delivered=95%,rejected=0%'),
    );
    expect(verdict.passed).toBe(false);
    expect(verdict.gates.map((g) => [g.name, g.passed, g.share])).toEqual([
      ['accepted', true, 97.5],
      ['delivered', false, (30 * 100) / 39],
      ['rejected', true, 2.5],
    ]);
    expect(
      judgeGates(
        counts({ accepted: 39, rejected: 1 }, 39),
        parseGates('accepted=95%,delivered=95%'),
      ).passed,
    ).toBe(true);
  });
});

describe('formatShare', () => {
  it.each([
    [39, 40, 99, '97.5%'],
    [40, 40, 99, '100%'],
    [9994, 10000, 99.95, '99.94%'],
    // Rounded down, so a share below its threshold never reads as equal to it.
    [99_999, 100_000, 100, '99.9%'],
    [0, 0, 95, '0%'],
  ])('%i of %i against %d%% → %s', (count, of, threshold, text) => {
    expect(formatShare(count, of, threshold)).toBe(text);
  });
});
