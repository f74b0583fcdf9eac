// The gateway client against the simulator: one POST a batch, its answer classified and masked;
// the request that was written whole and the one still queued when the run abandons them are told
// apart (unknown, failed); a close ends however undici left its connections.
import { systemClock } from '../../src/shared/clock.js';
import { afterEach, describe, expect, it } from 'vitest';
import { GatewayClient } from '../../src/gateway/client.js';
import { startSimulator, type FaultOptions, type Simulator } from '../../src/simulator/index.js';
import { waitFor } from '../helpers/reliability.js';

const sims: Simulator[] = [];
afterEach(async () => {
  await Promise.all(sims.splice(0).map((sim) => sim.stop()));
});

async function simulator(faults: FaultOptions = {}): Promise<Simulator> {
  const sim = await startSimulator({ faults, credentials: { username: 'u', password: 'sekret' } });
  sims.push(sim);
  return sim;
}

const client = (sim: Simulator, connections = 2, password = 'sekret') =>
  new GatewayClient(
    { endpoint: sim.url, username: 'u', password },
    { concurrency: connections, timeoutMs: 5_000, proxies: {} },
    systemClock,
  );

const message = (id: string) =>
  JSON.stringify({
    Gateway: 99700999,
    DestinationAddress: 4741000000,
    Price: 0,
    UserData: 'hi',
    MessageId: id,
  });

describe('GatewayClient', () => {
  it('posts one batch and gives each message its result, and says when the body left whole', async () => {
    const sim = await simulator();
    const gateway = client(sim);
    let posted = 0;
    const answer = await gateway.post(
      [message('a'), message('b')],
      ['a', 'b'],
      undefined,
      () => posted++,
    );
    await gateway.close();
    expect(posted).toBe(1);
    expect(answer.httpStatus).toBe(200);
    expect(answer.verdict).toMatchObject({
      kind: 'results',
      results: [
        { outcome: 'accepted', statusCode: 0 },
        { outcome: 'accepted', statusCode: 0 },
      ],
    });
    expect(sim.ledger.map((entry) => entry.messageId)).toEqual(['a', 'b']);
  });

  it('refused credentials stop the run, the password in no word of the answer', async () => {
    const sim = await simulator();
    const gateway = client(sim, 1, 'wrong-sekret-value');
    const answer = await gateway.post([message('a')], ['a']);
    await gateway.close();
    expect(answer.verdict).toMatchObject({ kind: 'failed', authRefused: true });
    expect(JSON.stringify(answer)).not.toContain('wrong-sekret-value');
  });

  it('abandoned: the request written whole is unknown, the one still queued behind it failed', async () => {
    // One connection for two requests: the second waits in the client's queue, unsent, behind the
    // first, which hangs. Only what may have reached the gateway is unknown.
    const sim = await simulator({ hang: 1 });
    const gateway = client(sim, 1);
    const abort = new AbortController();
    const hung = gateway.post([message('h')], ['h'], abort.signal);
    const queued = gateway.post([message('q')], ['q'], abort.signal);
    await waitFor(() => sim.requests.length === 1 || undefined, 'the first request at the gateway');
    abort.abort();
    const [first, second] = await Promise.all([hung, queued]);
    await gateway.destroy();
    expect(sim.requests).toHaveLength(1);
    expect(first.verdict).toMatchObject({ kind: 'unknown' });
    expect(second.verdict).toMatchObject({ kind: 'failed', reason: 'aborted before sending' });
  });
});
