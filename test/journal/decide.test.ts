// The pure decision a claim makes over what the state holds: --once, row by row.
import { describe, expect, it } from 'vitest';
import { decideClaim, type ClaimOptions, type StoredState } from '../../src/journal/decide.js';
import { campaignIdentity } from '../../src/journal/identity.js';
import { emptyJournalState } from '../../src/journal/journal.js';
import type { Manifest } from '../../src/journal/state.js';

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
