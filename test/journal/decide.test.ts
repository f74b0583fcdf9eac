// The pure decision a claim makes over what the state holds: --once, row by row.
import { describe, expect, it } from 'vitest';
import {
  decideClaim,
  KilledRunRefusal,
  type ClaimOptions,
  type StoredState,
} from '../../src/journal/decide.js';
import { campaignIdentity } from '../../src/journal/identity.js';
import { adoptResults, emptyJournalState } from '../../src/journal/reading.js';
import type { Manifest } from '../../src/journal/manifest.js';

const HASH = 'e'.repeat(64);
const identity = campaignIdentity(HASH);

function manifest(over: Partial<Manifest> = {}): Manifest {
  return {
    v: 1,
    id: identity.id,
    named: false,
    contentHash: HASH,
    inputs: [],
    target: 'gateway',
    reports: ['/r/a.csv'],
    createdAt: '2026-11-20T08:00:00.000Z',
    startedAt: '2026-11-20T08:00:00.000Z',
    updatedAt: '2026-11-20T09:00:00.000Z',
    status: 'finished',
    runs: 1,
    records: 3,
    counts: { accepted: 2, rejected: 0, invalid: 0, failed: 1, unknown: 0, skipped: 0 },
    ...over,
  };
}

const sentJournal = () => ({ ...emptyJournalState(), sent: true });
const once: ClaimOptions = { identity, force: false, resume: false, once: true };

describe('decideClaim with --once', () => {
  it.each<[string, StoredState, Record<string, unknown>]>([
    ['nothing there: a fresh start', { existed: false, archived: false }, { fresh: true }],
    [
      'a run killed before its first batch: a fresh start',
      { existed: true, archived: false },
      { fresh: true },
    ],
    [
      'finished (one record failed): done, nothing sent',
      { existed: true, manifest: manifest(), archived: false },
      { done: true, fresh: false, keepManifest: true },
    ],
    [
      'interrupted: resumed from its journal',
      {
        existed: true,
        manifest: manifest({ status: 'running' }),
        journal: sentJournal(),
        archived: false,
      },
      { fresh: false, keepManifest: true },
    ],
    [
      'stopped: resumed from its journal',
      {
        existed: true,
        manifest: manifest({ status: 'stopped' }),
        journal: sentJournal(),
        archived: false,
      },
      { fresh: false, keepManifest: true },
    ],
    [
      'a finished rehearsal: set aside, sent afresh',
      { existed: true, manifest: manifest({ rehearsal: true }), archived: false },
      { setAside: true, fresh: true },
    ],
  ])('%s', (_, state, expected) => {
    const decision = decideClaim(state, once);
    expect(decision).toMatchObject(expected);
    if (expected['done'] === undefined) expect(decision.done).toBeUndefined();
  });

  it('refuses a campaign of the same name sent from other inputs, as without --once', () => {
    const state = {
      existed: true,
      manifest: manifest({ contentHash: 'f'.repeat(64) }),
      archived: false,
    };
    expect(() => decideClaim(state, once)).toThrow(/from other inputs/);
  });
});

describe('the refusal of a campaign whose last run was killed', () => {
  const plain: ClaimOptions = { identity, force: false, resume: false };
  /** Rows 1–3 in flight, 3 not known to have left; the manifest still says running, as written at its start. */
  function killed() {
    const journal = {
      ...sentJournal(),
      inFlight: new Map([
        [1, 1],
        [2, 1],
        [3, 1],
      ]),
      unposted: new Set<number>([3]),
    };
    const state = {
      existed: true,
      manifest: manifest({ status: 'running' }),
      journal,
      archived: false,
    };
    return { journal, state };
  }

  it('counts its journal, the rows in flight by what is known of them', () => {
    const { state } = killed();
    expect(() => decideClaim(state, plain)).toThrow(
      /was interrupted on 2026-11-20: 2 sent without an answer, 1 recorded, not known to have left of 3 records;/,
    );
  });

  it('once the answers its report kept are taken, counts them settled, and says where they are', () => {
    const { journal, state } = killed();
    let refusal: unknown;
    try {
      decideClaim(state, plain);
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(KilledRunRefusal);
    adoptResults(journal, [
      { row: 1, outcome: 'accepted', statusCode: 0, attempts: 1 },
      { row: 2, outcome: 'accepted', statusCode: 0, attempts: 1 },
    ]);
    const recounted = new KilledRunRefusal((refusal as KilledRunRefusal).manifest, journal, 2);
    expect(recounted.message).toContain(
      '2 accepted (2 of them only in the report, where --resume takes them from), ' +
        '1 recorded, not known to have left of 3 records;',
    );
    expect(recounted.message).toContain(
      'and 3 messages it sent or may have sent (accepted or unknown) would go twice.',
    );
    expect(recounted.next).toEqual({ say: 'Finish it', add: ['--resume'], drop: ['--force'] });
  });
});
