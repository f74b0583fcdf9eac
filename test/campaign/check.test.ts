// `sms-send check` sends again what a send would (408, 429, 503, a connection refused before the
// request was written), honouring Retry-After within --timeout, and says so; --retries 0 sends once.
import { describe, expect, it } from 'vitest';
import { runInProcess } from '../helpers/in-process.js';
import { suiteFolder } from '../helpers/suite.js';

const suite = suiteFolder();
const ENV = { SMS_SEND_USERNAME: 'ci', SMS_SEND_PASSWORD: 'ci-secret' };

interface Checked {
  check: {
    ok: boolean;
    httpStatus?: number;
    attempts: number;
    retried?: string[];
    reason?: string;
  };
}

async function check(url: string, ...flags: string[]) {
  const run = await runInProcess(['check', '--json', '--endpoint', url, ...flags], { env: ENV });
  return { code: run.code, ...(JSON.parse(run.stdout) as Checked) };
}

describe('check against a gateway that sheds load', () => {
  it('passes every time where one 503 in five failed it, and says it retried', async () => {
    const sim = await suite.simulator({
      seed: 13,
      faults: { unavailable: 0.2, retryAfterSeconds: 0 },
    });
    const runs = [];
    for (let i = 0; i < 12; i++) runs.push(await check(sim.url));
    expect(runs.map((r) => [r.code, r.check.ok])).toEqual(Array(12).fill([0, true]));
    const retried = runs.filter((r) => r.check.attempts > 1);
    expect(retried.length).toBeGreaterThan(0);
    for (const r of retried) {
      expect(r.check.retried).toEqual(Array(r.check.attempts - 1).fill('HTTP 503'));
    }
    expect(sim.requests).toHaveLength(runs.reduce((n, r) => n + r.check.attempts, 0));
  });

  it('--retries 0 sends once: one 503 fails the check (exit 3)', async () => {
    const sim = await suite.simulator({ faults: { unavailable: 1, retryAfterSeconds: 0 } });
    const run = await check(sim.url, '--retries', '0');
    expect(run.code).toBe(3);
    expect(run.check).toMatchObject({ ok: false, httpStatus: 503, attempts: 1 });
    expect(run.check.retried).toBeUndefined();
    expect(sim.requests).toHaveLength(1);
  });

  it('gives up after --retries, naming the attempts on the line', async () => {
    const sim = await suite.simulator({ faults: { rateLimited: 1, retryAfterSeconds: 0 } });
    const run = await check(sim.url, '--retries', '2');
    expect(run.code).toBe(3);
    expect(run.check).toMatchObject({ ok: false, httpStatus: 429, attempts: 3 });
    expect(run.check.retried).toEqual(['HTTP 429', 'HTTP 429']);
    expect(sim.requests).toHaveLength(3);
    const plain = await runInProcess(['check', '--endpoint', sim.url, '--retries', '1'], {
      env: ENV,
    });
    expect(plain.stdout).toContain('attempts        2, sent again after HTTP 429');
  });

  it('does not wait out a Retry-After longer than --timeout: it says so at once', async () => {
    const sim = await suite.simulator({ faults: { unavailable: 1, retryAfterSeconds: 120 } });
    const run = await check(sim.url, '--timeout', '2s');
    expect(run.code).toBe(3);
    expect(run.check.attempts).toBe(1);
    expect(run.check.reason).toContain(
      'HTTP 503; the gateway asked to wait 120 s (Retry-After), longer than --timeout',
    );
  });

  it('a refused connection is retried too, and still fails when nothing listens', async () => {
    const sim = await suite.simulator();
    const url = sim.url;
    await sim.stop();
    const run = await check(url, '--retries', '1');
    expect(run.code).toBe(3);
    expect(run.check.attempts).toBe(2);
    expect(run.check.retried).toHaveLength(1);
    expect(run.check.retried![0]).toMatch(/refused/);
  });

  it('a backoff of its own is cut to --timeout, never taken for a Retry-After the gateway asked', async () => {
    const sim = await suite.simulator();
    const url = sim.url;
    await sim.stop();
    const run = await check(url, '--retries', '2', '--timeout', '200ms');
    expect(run.code).toBe(3);
    expect(run.check.attempts).toBe(3);
    expect(run.check.reason).not.toContain('Retry-After');
  });
});
