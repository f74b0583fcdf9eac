// What the claim's pure decision answers, word for word: each decision whole, and each refusal's
// message with the command it offers next, for every kind of campaign state that refuses.
import { describe, expect, it } from 'vitest';
import {
  decideClaim,
  KilledRunRefusal,
  nothingToResume,
  SupersededRefusal,
  type ClaimOptions,
  type StoredState,
} from '../../src/journal/decide.js';
import { campaignIdentity } from '../../src/journal/identity.js';
import type { Manifest } from '../../src/journal/manifest.js';
import { adoptResults, emptyJournalState } from '../../src/journal/reading.js';
import type { SmsSendError } from '../../src/shared/errors.js';

const HASH = 'd'.repeat(64);
const identity = campaignIdentity(HASH);
const ID = identity.id;
const ZERO = { accepted: 0, rejected: 0, invalid: 0, failed: 0, unknown: 0, skipped: 0 };

function manifest(over: Partial<Manifest> = {}): Manifest {
  return {
    v: 1,
    id: ID,
    named: false,
    contentHash: HASH,
    inputs: [],
    target: 'gateway',
    reports: ['/r/a.csv'],
    createdAt: '2026-11-20T08:00:00.000Z',
    startedAt: '2026-11-20T08:00:00.000Z',
    updatedAt: '2026-11-21T09:00:00.000Z',
    status: 'finished',
    runs: 1,
    records: 3,
    counts: { ...ZERO, accepted: 2, failed: 1 },
    ...over,
  };
}

const plain: ClaimOptions = { identity, force: false, resume: false };
const stored = (m?: Manifest): StoredState => ({
  existed: m !== undefined,
  manifest: m,
  archived: false,
});

/** The refusal decideClaim throws, as message and next step. */
function refusalOf(state: StoredState, options: ClaimOptions = plain) {
  try {
    decideClaim(state, options);
  } catch (error) {
    const e = error as SmsSendError;
    return { message: e.message, code: e.code, next: e.next };
  }
  throw new Error('no refusal');
}

describe('decideClaim: each decision whole', () => {
  it.each<[string, StoredState, ClaimOptions, Record<string, unknown>]>([
    [
      '--resume of a campaign never run here',
      stored(),
      { ...plain, resume: true },
      { manifest: undefined, fresh: true, keepManifest: false, nothingToResume: true },
    ],
    [
      '--resume --once of one never run here: a start',
      stored(),
      { ...plain, resume: true, once: true },
      { manifest: undefined, fresh: true, keepManifest: false },
    ],
    [
      'a finished campaign that reached no gateway (all invalid)',
      stored(manifest({ counts: { ...ZERO, invalid: 3 } })),
      plain,
      { manifest: manifest({ counts: { ...ZERO, invalid: 3 } }), fresh: true, keepManifest: false },
    ],
    [
      'a finished rehearsal: set aside',
      stored(manifest({ rehearsal: true })),
      plain,
      { manifest: manifest({ rehearsal: true }), fresh: true, keepManifest: false, setAside: true },
    ],
    [
      '--force of a finished campaign',
      stored(manifest()),
      { ...plain, force: true },
      { manifest: manifest(), fresh: true, keepManifest: true },
    ],
    [
      '--resume of a finished campaign',
      stored(manifest()),
      { ...plain, resume: true },
      { manifest: manifest(), fresh: false, keepManifest: true, finished: true },
    ],
  ])('%s', (_, state, options, decision) => {
    expect(decideClaim(state, options)).toEqual(decision);
  });
});

describe('decideClaim: each refusal, word for word, with what it offers next', () => {
  it('finished with failed records: --resume sends only those', () => {
    expect(refusalOf(stored(manifest()))).toMatchInlineSnapshot(`
      {
        "code": "already-sent",
        "message": "campaign dddddddddddddddd was already sent on 2026-11-21: 2 accepted, 1 failed; report /r/a.csv. Nothing was sent. --force sends it all again, and 2 messages it sent or may have sent (accepted or unknown) would go twice; --resume sends only its 1 failed records again.",
        "next": {
          "add": [
            "--resume",
          ],
          "say": "Send only its failed records again",
        },
      }
    `);
  });

  it('finished, one rejection only, nothing failed: what it sent, in its report', () => {
    expect(
      refusalOf(stored(manifest({ counts: { ...ZERO, rejected: 1, accepted: 1, unknown: 1 } }))),
    ).toMatchInlineSnapshot(`
      {
        "code": "already-sent",
        "message": "campaign dddddddddddddddd was already sent on 2026-11-21: 1 accepted, 1 rejected, 1 unknown; report /r/a.csv. Nothing was sent. --force sends it all again, and 2 messages it sent or may have sent (accepted or unknown) would go twice.",
        "next": {
          "args": [
            "report",
            "/r/a.csv",
          ],
          "say": "See what it sent",
        },
      }
    `);
  });

  it('finished with no report: what it sent, in campaigns show', () => {
    expect(refusalOf(stored(manifest({ reports: [], counts: { ...ZERO, rejected: 1 } }))))
      .toMatchInlineSnapshot(`
      {
        "code": "already-sent",
        "message": "campaign dddddddddddddddd was already sent on 2026-11-21: 1 rejected; report (none). Nothing was sent. --force sends it all again.",
        "next": {
          "args": [
            "campaigns",
            "show",
            "dddddddddddddddd",
          ],
          "say": "See what it sent",
        },
      }
    `);
  });

  it('records skipped without --limit (a suppression list): refused as any finished campaign', () => {
    expect(refusalOf(stored(manifest({ counts: { ...ZERO, accepted: 3, skipped: 2 } }))).code).toBe(
      'already-sent',
    );
    expect(
      refusalOf(stored(manifest({ counts: { ...ZERO, accepted: 3, skipped: 2 } }))).message,
    ).not.toContain('--limit');
  });

  it('sent with --limit but nothing left out: refused as any finished campaign', () => {
    expect(
      refusalOf(stored(manifest({ limit: 3, counts: { ...ZERO, accepted: 3 } }))).next,
    ).toEqual({ say: 'See what it sent', args: ['report', '/r/a.csv'] });
  });

  it('a pilot (--limit left records out): --skip-sent-by sends the rest', () => {
    expect(
      refusalOf(
        stored(manifest({ limit: 2, counts: { ...ZERO, accepted: 1, unknown: 1, skipped: 4 } })),
      ),
    ).toMatchInlineSnapshot(`
      {
        "code": "already-sent",
        "message": "campaign dddddddddddddddd was sent on 2026-11-21 with --limit 2: 1 accepted, 1 unknown, 4 skipped (--limit is not part of what the campaign is: the same content is the same campaign). Nothing was sent. --skip-sent-by dddddddddddddddd sends the 4 records it left out as a campaign of its own; --resume takes this one on past its limit (--resume --limit N to N); --force sends it all again, and 2 messages it sent or may have sent (accepted or unknown) would go twice.",
        "next": {
          "add": [
            "--skip-sent-by",
            "dddddddddddddddd",
          ],
          "drop": [
            "--force",
          ],
          "say": "Send what the pilot left out",
        },
      }
    `);
  });

  it('superseded by another campaign: refused, naming the last that sent the rest', () => {
    const state = {
      ...stored(manifest({ status: 'stopped', supersededBy: ['aaaa', 'bbbb', 'cccc'] })),
      journal: { ...emptyJournalState(), sent: true },
    };
    const refused = refusalOf(state, { ...plain, resume: true });
    expect(refused).toMatchInlineSnapshot(`
      {
        "code": "superseded",
        "message": "campaign dddddddddddddddd was stopped on 2026-11-21, and campaign aaaa, campaign bbbb, campaign cccc sent the rest of its content (--skip-sent-by dddddddddddddddd): it is not continued, since its --resume, --once or retry would send their recipients the message again. Nothing was sent. --force sends it all again.",
        "next": {
          "args": [
            "campaigns",
            "show",
            "cccc",
          ],
          "say": "See how that campaign stands",
        },
      }
    `);
    expect(() => decideClaim(state, plain)).toThrow(SupersededRefusal);
  });
});

describe('nothingToResume', () => {
  const kin = manifest({ id: 'kin-name', named: true, status: 'running' });
  it.each<[string, ClaimOptions, Manifest | undefined]>([
    ['no kin, no report yet', { ...plain, resume: true }, undefined],
    ['no kin, its report there', { ...plain, resume: true, existingReport: '/r/b.csv' }, undefined],
    ['a named kin from the same files', { ...plain, resume: true }, kin],
  ])('%s', (_, options, found) => {
    const error = nothingToResume(options, '/state', found, found ? 'interrupted' : undefined);
    expect({ message: error.message, code: error.code, next: error.next }).toMatchSnapshot();
  });
});

describe('an unfinished campaign: how it stands, counted from its journal', () => {
  /** One accepted, one unknown, rows 3 and 4 sent without an answer, row 5 not known to have left. */
  function journal() {
    const state = { ...emptyJournalState(), sent: true };
    adoptResults(state, [
      { row: 1, outcome: 'accepted', statusCode: 0, attempts: 1 },
      { row: 2, outcome: 'unknown', attempts: 1 },
    ]);
    for (const row of [3, 4, 5]) state.inFlight.set(row, 1);
    state.unposted.add(5);
    return state;
  }

  it.each<[string, Partial<Manifest>, boolean, string]>([
    [
      'a killed campaign',
      {},
      true,
      'campaign dddddddddddddddd was interrupted on 2026-11-21: 1 accepted, 1 unknown, ' +
        '2 sent without an answer, 1 recorded, not known to have left of 6 records; report /r/a.csv. ' +
        'Nothing was sent. Finish it with --resume (nothing settled is sent again), or --force to ' +
        'send it all again, and 5 messages it sent or may have sent (accepted or unknown) would go twice.',
    ],
    [
      'a killed rehearsal',
      { rehearsal: true },
      true,
      'rehearsal dddddddddddddddd was interrupted on 2026-11-21: 1 accepted, 1 unknown, ' +
        '2 sent without an answer, 1 recorded, not known to have left of 6 records; report /r/a.csv. ' +
        'Nothing was sent. Finish it with --resume (nothing settled is sent again), or --force to ' +
        'start the rehearsal afresh (its messages went to a simulator only).',
    ],
    [
      'a campaign killed before any answer was kept',
      {},
      false,
      'campaign dddddddddddddddd was interrupted on 2026-11-21: nothing settled of 6 records; ' +
        'report /r/a.csv. Nothing was sent. Finish it with --resume (nothing settled is sent ' +
        'again), or --force to send it all again.',
    ],
  ])('%s', (_, over, settled, message) => {
    const state = settled ? journal() : emptyJournalState();
    const refusal = new KilledRunRefusal(
      manifest({ status: 'running', records: 6, ...over }),
      state,
    );
    expect(refusal.message).toBe(message);
    expect(refusal.next).toEqual({ say: 'Finish it', add: ['--resume'], drop: ['--force'] });
  });
});
