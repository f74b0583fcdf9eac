// A run's time is its sending time: the validation before it and the confirmation prompt (which
// may wait for minutes) count neither in the summary's time and rate nor in the progress line.
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { tempDir } from '../helpers/files.js';
import { runPipeline } from '../helpers/pipeline.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/input/', import.meta.url));
const T0 = Date.parse('2026-03-02T10:00:00Z');
/** How long the operator took to answer the prompt. */
const PROMPT_MS = 15_000;

let dir: Awaited<ReturnType<typeof tempDir>>;
beforeAll(async () => {
  dir = await tempDir();
});
afterAll(async () => {
  await dir.remove();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('the time of a send', () => {
  it('starts when sending starts, not when the campaign was validated or the prompt asked', async () => {
    // Only Date is faked: it stands still unless the test moves it, while timers and sockets run.
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(T0);
    const run = await runPipeline(['recipients.csv', '--text', 'hi', '--country', 'NO'], {
      cwd: FIXTURES,
      workDir: dir.path,
      // The operator answers the confirmation 15 s after the plan was shown.
      beforeSend: () => {
        vi.setSystemTime(T0 + PROMPT_MS);
      },
    });
    expect(run.code, run.error).toBe(0);
    const summary = run.summary!;
    expect(summary.startedAt).toBe(T0 + PROMPT_MS);
    expect(summary.durationMs).toBe(0);
  });
});
