// Credentials: refused as ProcessResult false (HTTP 200 or the configured status), never echoing the password.
import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';
import { message, postRaw } from './helpers.js';

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.stop();
  sim = undefined;
});

const SECRET = 'Hunter2-very-secret';

async function attempt(
  s: Simulator,
  credentials: Record<string, unknown>,
): Promise<{
  status: number;
  text: string;
  json: { ProcessResult: boolean; ProcessResultDescription?: string; Messages?: unknown[] };
}> {
  const reply = await postRaw(s, JSON.stringify({ ...credentials, Messages: [message()] }));
  return { ...reply, json: JSON.parse(reply.text) as never };
}

describe('without configured credentials', () => {
  it.each([
    ['Username missing', { Password: SECRET }, /Username is missing/],
    ['Username empty', { Username: '', Password: SECRET }, /Username is missing/],
    ['Username null', { Username: null, Password: SECRET }, /Username is missing/],
    ['Username an object', { Username: { id: 1 }, Password: SECRET }, /Username must be a string/],
    [
      'Username over 128',
      { Username: 'u'.repeat(129), Password: SECRET },
      /Username is longer than 128/,
    ],
    ['Password missing', { Username: 'acme' }, /Password is missing/],
    ['Password empty', { Username: 'acme', Password: '' }, /Password is missing/],
    [
      'Password over 128',
      { Username: 'acme', Password: SECRET.repeat(10) },
      /Password is longer than 128/,
    ],
  ])('%s → ProcessResult false, nothing processed', async (_name, credentials, description) => {
    sim = await startSimulator();
    const reply = await attempt(sim, credentials);
    expect(reply.status).toBe(200);
    expect(reply.json.ProcessResult).toBe(false);
    expect(reply.json.ProcessResultDescription).toMatch(/^Authentication failed: /);
    expect(reply.json.ProcessResultDescription).toMatch(description);
    expect(reply.json.Messages).toEqual([]);
    expect(reply.text).not.toContain(SECRET);
    expect(sim.ledger).toHaveLength(0);
    expect(sim.requests[0]?.outcome).toBe('auth');
  });

  it.each([
    ['strings at the limit', { Username: 'u'.repeat(128), Password: 'p'.repeat(128) }],
    ['a numeric customer id', { Username: 12345, Password: SECRET }],
  ])('accepts %s', async (_name, credentials) => {
    sim = await startSimulator();
    const reply = await attempt(sim, credentials);
    expect(reply.json.ProcessResult).toBe(true);
    expect(sim.ledger).toHaveLength(1);
  });
});

describe('with configured credentials', () => {
  const credentials = { username: 'acme', password: SECRET };

  it('accepts the right pair', async () => {
    sim = await startSimulator({ credentials });
    const reply = await attempt(sim, { Username: 'acme', Password: SECRET });
    expect(reply.json.ProcessResult).toBe(true);
    expect(sim.ledger).toHaveLength(1);
  });

  it.each([
    ['wrong password', { Username: 'acme', Password: 'not-it' }],
    ['wrong username', { Username: 'other', Password: SECRET }],
    ['password with a different case', { Username: 'acme', Password: SECRET.toLowerCase() }],
  ])('refuses a %s without naming which one', async (_name, given) => {
    sim = await startSimulator({ credentials });
    const reply = await attempt(sim, given);
    expect(reply.status).toBe(200);
    expect(reply.json.ProcessResult).toBe(false);
    expect(reply.json.ProcessResultDescription).toBe(
      'Authentication failed: wrong Username or Password',
    );
    expect(reply.text).not.toContain(SECRET);
    expect(reply.text).not.toContain('not-it');
    expect(sim.ledger).toHaveLength(0);
  });

  it.each([401, 403] as const)(
    'uses HTTP %i when authStatus says so, same body',
    async (authStatus) => {
      sim = await startSimulator({ credentials, faults: { authStatus } });
      const reply = await attempt(sim, { Username: 'acme', Password: 'nope' });
      expect(reply.status).toBe(authStatus);
      expect(reply.json.ProcessResult).toBe(false);
      expect(reply.json.ProcessResultDescription).toMatch(/^Authentication failed: /);
      expect(sim.ledger).toHaveLength(0);
    },
  );
});
