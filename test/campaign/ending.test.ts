// How an interrupted run words its stop: what the --resume it names sends, and, when only unknown
// records are left, that it sends none of them and what would, with what could then go twice.
import { describe, expect, it } from 'vitest';
import { endingError } from '../../src/campaign/ending.js';
import type { CampaignResult } from '../../src/campaign/types.js';
import type { Outcome } from '../../src/message/outcome.js';
import { ExitCode, InterruptedError } from '../../src/shared/errors.js';

const ZERO: Record<Outcome, number> = {
  accepted: 0,
  rejected: 0,
  invalid: 0,
  failed: 0,
  unknown: 0,
  skipped: 0,
};

/** An interrupted run's result with these counts, `notSent` of them never attempted. */
function interrupted(notSent: number, counts: Partial<Record<Outcome, number>>): CampaignResult {
  const byOutcome = { ...ZERO, ...counts };
  const total = Object.values(byOutcome).reduce((a, b) => a + b, 0);
  return {
    send: { interrupted: true, notSent },
    summary: {
      total,
      byOutcome,
      byStatusCode: {},
      startedAt: 0,
      finishedAt: 0,
      durationMs: 0,
      messagesPerSecond: 0,
      exitCode: ExitCode.notAllAccepted,
    },
    exitCode: ExitCode.interrupted,
  };
}

/** The stop's words as the command line puts them together. */
const words = (result: CampaignResult) =>
  endingError(result, {}, (what, how) => `${what}. ${how}: sms-send in.csv --resume`);

describe('endingError: an interrupted run', () => {
  const cases: [string, CampaignResult, string[], string[]][] = [
    [
      'only abandoned (unknown) rows left: --resume sends none, --retry-unknown is offered with its warning',
      interrupted(0, { accepted: 60, unknown: 40 }),
      [
        'interrupted: no record is left to send; 40 are unknown (sent, no answer came), which ' +
          '--resume does not send again: it sends nothing and marks the campaign finished. ' +
          '`--resume --retry-unknown` sends them again, and any of these 40 the gateway did ' +
          'accept would then go twice. Finish the campaign with: sms-send in.csv --resume',
      ],
      ['0 records not sent'],
    ],
    [
      'one unknown row',
      interrupted(0, { accepted: 9, unknown: 1 }),
      ['1 is unknown', 'sends it again, and any of these 1 '],
      ['0 records not sent'],
    ],
    [
      'records not sent beside unknown ones: --resume sends those',
      interrupted(30, { accepted: 50, unknown: 20, skipped: 30 }),
      ['interrupted: 30 records not sent. Finish the campaign with'],
      ['--retry-unknown'],
    ],
    [
      'failed ones too: --resume sends both',
      interrupted(30, { accepted: 60, failed: 10, skipped: 30 }),
      ['interrupted: 30 records not sent and 10 failed; --resume sends these 40'],
      ['--retry-unknown'],
    ],
  ];

  it.each(cases)('%s', (_, result, says, never) => {
    const error = words(result);
    expect(error).toBeInstanceOf(InterruptedError);
    expect(error?.exitCode).toBe(ExitCode.interrupted);
    for (const text of says) expect(error?.message).toContain(text);
    for (const text of never) expect(error?.message).not.toContain(text);
  });
});
