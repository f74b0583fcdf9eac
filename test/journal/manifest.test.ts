// The manifest a run starts and ends with, field by field: what it keeps of earlier runs, and
// when the campaign stays a rehearsal.
import { describe, expect, it } from 'vitest';
import {
  finishedManifest,
  rehearsedSoFar,
  reportMoved,
  startedManifest,
  type Manifest,
  type StartFields,
} from '../../src/journal/manifest.js';
import { startFieldsOf } from '../helpers/state.js';

const COUNTS = { accepted: 1, rejected: 0, invalid: 0, failed: 0, unknown: 0, skipped: 0 };

function earlier(over: Partial<Manifest> = {}): Manifest {
  return {
    v: 1,
    id: 'c1',
    named: false,
    contentHash: 'h',
    inputs: [],
    target: 'simulator',
    reports: ['/r/one.csv', '/r/two.csv'],
    createdAt: '2026-11-01T00:00:00.000Z',
    startedAt: '2026-11-01T00:00:00.000Z',
    updatedAt: '2026-11-01T00:01:00.000Z',
    status: 'interrupted',
    runs: 2,
    records: 1,
    counts: COUNTS,
    ...over,
  };
}

function fields(over: Partial<StartFields> = {}): StartFields {
  return {
    ...startFieldsOf(earlier()),
    report: '/r/one.csv',
    startedAt: '2026-11-29T00:00:00.000Z',
    ...over,
  };
}

describe('startedManifest', () => {
  it('keeps the first creation time, counts the run, and puts its report last, once', () => {
    const m = startedManifest(earlier(), fields());
    expect(m.createdAt).toBe('2026-11-01T00:00:00.000Z');
    expect(m.runs).toBe(3);
    expect(m.reports).toEqual(['/r/two.csv', '/r/one.csv']);
    expect(m).not.toHaveProperty('report');
  });

  it('a first run: created as it starts, run 1, its report alone', () => {
    const m = startedManifest(undefined, fields());
    expect([m.createdAt, m.runs, m.reports]).toEqual([
      '2026-11-29T00:00:00.000Z',
      1,
      ['/r/one.csv'],
    ]);
  });

  it("keeps the earlier runs' prices when given none, and takes the run's own when given", () => {
    const pricing = { pricePerSegment: { default: 0.5 }, currency: 'NOK' } as Manifest['pricing'];
    const own = { pricePerSegment: { default: 0.7 }, currency: 'EUR' } as Manifest['pricing'];
    expect(startedManifest(earlier({ pricing }), fields()).pricing).toEqual(pricing);
    expect(startedManifest(earlier({ pricing }), fields({ pricing: own })).pricing).toEqual(own);
    expect(startedManifest(earlier(), fields())).not.toHaveProperty('pricing');
  });

  it.each<[string, true | undefined, Manifest | undefined, boolean]>([
    ['a first rehearsal', true, undefined, true],
    ['a rehearsal after rehearsals', true, earlier({ rehearsal: true }), true],
    ['a rehearsal after a real run', true, earlier(), false],
    ['a real run, first', undefined, undefined, false],
    ['a real run after rehearsals', undefined, earlier({ rehearsal: true }), false],
  ])('%s: a rehearsal only if every run was', (_what, rehearsal, previous, is) => {
    const m = startedManifest(previous, fields(rehearsal === undefined ? {} : { rehearsal }));
    expect(m.rehearsal === true).toBe(is);
    if (!is) expect(m).not.toHaveProperty('rehearsal');
  });
});

describe('finishedManifest', () => {
  const end = {
    status: 'finished' as const,
    counts: COUNTS,
    records: 1,
    at: '2026-11-29T01:00:00.000Z',
  };

  it.each<[string, boolean | undefined, Manifest | undefined, boolean]>([
    ['a rehearsal ending a rehearsed campaign', true, earlier({ rehearsal: true }), true],
    ['a rehearsal ending a first run', true, undefined, true],
    ['a rehearsal after a real run', true, earlier(), false],
    ['a real run', undefined, earlier({ rehearsal: true }), false],
  ])('%s', (_what, rehearsal, previous, is) => {
    const current = { ...earlier({ rehearsal: true }), reason: 'left over' };
    const m = finishedManifest(current, { ...end, ...(rehearsal ? { rehearsal } : {}) }, previous);
    expect(m.rehearsal === true).toBe(is);
    expect(m).not.toHaveProperty('reason');
    expect([m.finishedAt, m.updatedAt, m.status]).toEqual([end.at, end.at, 'finished']);
  });
});

describe('rehearsedSoFar', () => {
  it.each<[string, Manifest | undefined, boolean]>([
    ['no run yet', undefined, true],
    ['rehearsals only', earlier({ rehearsal: true }), true],
    ['a run that reached a gateway', earlier(), false],
  ])('%s', (_what, previous, expected) => {
    expect(rehearsedSoFar(previous)).toBe(expected);
  });
});

describe('reportMoved', () => {
  it('renames the one report, the others as they were, in order', () => {
    expect(reportMoved(earlier(), '/r/one.csv', '/r/one.c1.csv').reports).toEqual([
      '/r/one.c1.csv',
      '/r/two.csv',
    ]);
    expect(reportMoved(earlier(), '/r/none.csv', '/x').reports).toEqual([
      '/r/one.csv',
      '/r/two.csv',
    ]);
  });
});
