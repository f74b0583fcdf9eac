// The canary reading a fleet's kept reports: each one passed on once, in order, while it listens;
// a store that fails a read is read again, and says why while it fails.
import { describe, expect, it, vi } from 'vitest';
import { keptCanary } from '../../src/campaign/kept-canary.js';
import type { CanaryReport } from '../../src/dlr/canary.js';
import type { DeliveryShelf, StoredDelivery } from '../../src/journal/store.js';

const report = (status: string): StoredDelivery => ({
  messageId: 'check-1',
  status,
  timestamp: undefined,
  transactionId: undefined,
  receivedAt: '2026-11-29T10:00:00.000Z',
});

/** A shelf whose canary reads answer from `answers`, one per read, then the last again. */
function shelfAnswering(answers: Array<StoredDelivery[] | Error>) {
  const asked: string[] = [];
  const shelf = {
    canary: (messageId: string) => {
      asked.push(messageId);
      const answer = answers.length > 1 ? answers.shift()! : answers[0]!;
      return answer instanceof Error ? Promise.reject(answer) : Promise.resolve(answer);
    },
  } as unknown as DeliveryShelf;
  return { shelf, asked };
}

describe('keptCanary', () => {
  it('passes each kept report on once, in the order kept, and stops reading when told', async () => {
    const { shelf, asked } = shelfAnswering([
      [],
      [report('ENROUTE')],
      [report('ENROUTE'), report('DELIVRD')],
    ]);
    const heard: CanaryReport[] = [];
    const kept = keptCanary(shelf, 'check-1', 5);
    const stop = kept.reports((r) => heard.push(r));
    await vi.waitFor(() => expect(heard).toHaveLength(2));
    stop();
    const reads = asked.length;
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(asked.length).toBe(reads);
    expect(new Set(asked)).toEqual(new Set(['check-1']));
    expect(heard.map((r) => r.status)).toEqual(['ENROUTE', 'DELIVRD']);
    expect(kept.trouble()).toBeUndefined();
  });

  it('reads again after a failed read, naming the failure until a read succeeds', async () => {
    const { shelf } = shelfAnswering([
      new Error('connection refused'),
      new Error('connection refused'),
      [report('DELIVRD')],
    ]);
    const heard: CanaryReport[] = [];
    const kept = keptCanary(shelf, 'check-1', 5);
    const troubles: Array<string | undefined> = [];
    const stop = kept.reports((r) => {
      troubles.push(kept.trouble());
      heard.push(r);
    });
    await vi.waitFor(() => expect(heard).toHaveLength(1));
    stop();
    expect(troubles).toEqual([undefined]);
    expect(heard[0]).toMatchObject({ messageId: 'check-1', status: 'DELIVRD' });
  });

  it('while every read fails, says why', async () => {
    const { shelf } = shelfAnswering([new Error('the database system is starting up')]);
    const kept = keptCanary(shelf, 'check-1', 5);
    const stop = kept.reports(() => undefined);
    await vi.waitFor(() => expect(kept.trouble()).toBe('the database system is starting up'));
    stop();
  });
});
