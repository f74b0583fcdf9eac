// What a stop says is true of the moment: no batches "in flight" while waiting for the window, no
// Ctrl-C advice to a service manager's SIGTERM, no rate of nothing for a resume with nothing left.
import { Chalk } from 'chalk';
import { describe, expect, it } from 'vitest';
import { renderStopping } from '../../../src/cli/ui/signals.js';
import { renderSummary } from '../../../src/cli/ui/summary.js';
import type { RunSummary } from '../../../src/report/summary.js';

const plain = new Chalk({ level: 0 });

describe('the note on the first signal', () => {
  it.each([
    [
      'Ctrl-C while batches go out',
      { signal: 'SIGINT' as const, waitingForWindow: false },
      'stopping: finishing the batches in flight (press Ctrl-C again to abandon them)',
    ],
    [
      'SIGTERM while batches go out',
      { signal: 'SIGTERM' as const, waitingForWindow: false },
      'stopping: finishing the batches in flight (a second SIGTERM abandons them)',
    ],
    [
      'Ctrl-C while waiting for the send window',
      { signal: 'SIGINT' as const, waitingForWindow: true },
      'stopping: the send window had not opened, so nothing was sent',
    ],
    [
      'SIGTERM while waiting for the send window',
      { signal: 'SIGTERM' as const, waitingForWindow: true },
      'stopping: the send window had not opened, so nothing was sent',
    ],
  ])('%s', (_when, moment, expected) => {
    expect(renderStopping(moment)).toBe(expected);
  });

  it('never speaks of batches in flight while waiting, nor of Ctrl-C to a SIGTERM', () => {
    expect(renderStopping({ signal: 'SIGINT', waitingForWindow: true })).not.toContain('in flight');
    expect(renderStopping({ signal: 'SIGTERM', waitingForWindow: false })).not.toContain('Ctrl-C');
  });
});

describe('the summary of a resume that found everything settled', () => {
  it('gives the time without a rate of 0.0 msg/s', () => {
    const finished: RunSummary = {
      total: 3,
      byOutcome: { accepted: 3, rejected: 0, invalid: 0, failed: 0, unknown: 0, skipped: 0 },
      byStatusCode: { '0': { count: 3, description: 'Accepted' } },
      startedAt: 0,
      finishedAt: 40,
      durationMs: 40,
      messagesPerSecond: 0,
      reportPath: 'campaign.report.csv',
      exitCode: 0,
    };
    const text = renderSummary(
      finished,
      { simulated: false, resumed: { fromJournal: 3, fromReport: 0, inFlight: 0, unposted: 0 } },
      plain,
    );
    expect(text).toContain('  time      40 ms\n');
    expect(text).not.toContain('msg/s');
  });
});
