// TransactionIds, ExtraInfo and the ledger: what a test needs to prove nothing was sent twice.
import { afterEach, describe, expect, it } from 'vitest';
import { findDuplicates, startSimulator, type Simulator } from '../../src/simulator/index.js';
import { message, messages, send } from './helpers.js';

const started: Simulator[] = [];
async function start(...args: Parameters<typeof startSimulator>): Promise<Simulator> {
  const sim = await startSimulator(...args);
  started.push(sim);
  return sim;
}
afterEach(async () => {
  await Promise.all(started.splice(0).map((sim) => sim.stop()));
});

async function transactionIds(
  sim: Simulator,
  requests: number,
  perRequest: number,
): Promise<string[]> {
  const ids: string[] = [];
  for (let r = 0; r < requests; r++) {
    const reply = await send(sim, messages(perRequest, `r${r}-`));
    for (const result of reply.json.Messages ?? []) ids.push(result.TransactionId);
  }
  return ids;
}

describe('TransactionId', () => {
  it('is unique across 1,000 messages and at most 32 characters', async () => {
    const sim = await start();
    const ids = await transactionIds(sim, 10, 100);
    expect(ids).toHaveLength(1000);
    expect(new Set(ids).size).toBe(1000);
    for (const id of ids) expect(id.length).toBeLessThanOrEqual(32);
    expect(sim.ledger.map((e) => e.transactionId)).toEqual(ids);
  });

  it("with transactionIds: 'random', is 32 random hex digits, unique, in the ledger too", async () => {
    const sim = await start({ transactionIds: 'random' });
    const ids = await transactionIds(sim, 5, 100);
    expect(ids).toHaveLength(500);
    expect(new Set(ids).size).toBe(500);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{32}$/);
    // Not counting up: no two in a row share the 24 digits a counter would keep.
    expect(ids.some((id, i) => i > 0 && id.slice(0, 24) === ids[i - 1]!.slice(0, 24))).toBe(false);
    expect(sim.ledger.map((e) => e.transactionId)).toEqual(ids);
  });

  it('differs between two instances', async () => {
    const a = await start();
    const b = await start();
    const idsA = await transactionIds(a, 2, 50);
    const idsB = await transactionIds(b, 2, 50);
    const all = new Set([...idsA, ...idsB]);
    expect(all.size).toBe(200);
  });

  it('is given to rejected messages too, unique among them', async () => {
    const sim = await start();
    const reply = await send(sim, [message({ Gateway: 0 }), message(), message({ Price: -1 })]);
    const ids = (reply.json.Messages ?? []).map((r) => r.TransactionId);
    expect(ids.every((id) => id.length > 0)).toBe(true);
    expect(new Set(ids).size).toBe(3);
    expect(sim.ledger.map((e) => e.transactionId)).toEqual([ids[1]]);
  });
});

describe('ledger', () => {
  it('records each accepted message as received, with its request and ExtraInfo', async () => {
    const sim = await start({ serverName: 'smsgw7' });
    const items = [
      message({ MessageId: 'x1', DestinationAddress: 4741234567, CustomData: { qos: 1 } }),
      message({ MessageId: 'x2', DestinationAddress: '4798765432', Gateway: 0 }),
      message({ MessageId: 'x3', DestinationAddress: '46701234567' }),
    ];
    const before = Date.now();
    const reply = await send(sim, items);
    const after = Date.now();
    const results = reply.json.Messages ?? [];

    expect(sim.ledger).toHaveLength(2);
    const [first, second] = sim.ledger;
    expect(first).toMatchObject({
      transactionId: results[0]?.TransactionId,
      messageId: 'x1',
      destination: '4741234567',
      message: items[0],
      request: 1,
    });
    expect(second).toMatchObject({
      transactionId: results[2]?.TransactionId,
      messageId: 'x3',
      destination: '46701234567',
      message: items[2],
      request: 1,
    });
    expect(first?.receivedAt).toBeGreaterThanOrEqual(before);
    expect(first?.receivedAt).toBeLessThanOrEqual(after);
    expect(results[0]?.ExtraInfo).toEqual({
      server: 'smsgw7',
      subnumref: expect.stringMatching(/^\d+$/) as string,
    });
    expect(results[1]?.ExtraInfo).toEqual({ server: 'smsgw7' });
    expect(sim.requests[0]).toMatchObject({ seq: 1, messageCount: 3, accepted: 2, outcome: 'ok' });
    expect(sim.acceptedCount).toBe(2);
  });

  it('gives each accepted message its own subnumref', async () => {
    const sim = await start();
    const reply = await send(sim, messages(20));
    const refs = (reply.json.Messages ?? []).map((r) => r.ExtraInfo?.['subnumref']);
    expect(new Set(refs).size).toBe(20);
  });

  it('lets findDuplicates spot a message sent twice', async () => {
    const sim = await start();
    await send(sim, [message({ MessageId: 'once' }), message({ MessageId: 'twice' })]);
    await send(sim, [message({ MessageId: 'twice' }), message({ MessageId: undefined })]);
    await send(sim, [message({ MessageId: undefined })]);
    const groups = findDuplicates(sim.ledger);
    expect(groups).toHaveLength(1);
    expect(groups[0]?.map((e) => [e.messageId, e.request])).toEqual([
      ['twice', 1],
      ['twice', 2],
    ]);
    expect(findDuplicates(sim.ledger, (e) => e.destination)).toHaveLength(1);
  });

  it('keeps only the newest ledgerLimit entries but counts them all', async () => {
    const sim = await start({ ledgerLimit: 5, requestLimit: 2 });
    for (let i = 0; i < 4; i++) await send(sim, messages(3, `b${i}-`));
    expect(sim.acceptedCount).toBe(12);
    expect(sim.ledger.map((e) => e.messageId)).toEqual(['b2-2', 'b2-3', 'b3-1', 'b3-2', 'b3-3']);
    expect(sim.requestCount).toBe(4);
    expect(sim.requests.map((r) => r.seq)).toEqual([3, 4]);
  });

  it.each([0, -1, 1.5])('refuses ledgerLimit %s', async (ledgerLimit) => {
    await expect(startSimulator({ ledgerLimit })).rejects.toThrow(RangeError);
  });
});
