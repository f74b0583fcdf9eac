// The gateway client keeps nothing per request: a campaign of any length sends through one client,
// so a byte kept per batch would be memory that grows with the campaign (see docs/benchmark.md#memory).
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const TS_LOADER = new URL('../helpers/ts-loader.js', import.meta.url).href;
const CHILD = fileURLToPath(new URL('../helpers/client-memory.ts', import.meta.url));

describe('the gateway client', () => {
  it('holds no more live memory after 3,000 more requests, and leaves no listener on the run signal', () => {
    // --expose-gc is the test's, for a reading of the live heap; sms-send sets no V8 flag.
    const child = spawnSync(
      process.execPath,
      ['--expose-gc', '--import', TS_LOADER, CHILD, '2000', '3000'],
      { encoding: 'utf8' },
    );
    expect(child.status, child.stderr).toBe(0);
    const { heaps, requests, listeners } = JSON.parse(child.stdout) as {
      heaps: number[];
      requests: number;
      listeners: number;
    };
    expect(listeners).toBe(0);
    // The first rounds still add code V8 optimises; between the last two readings it moved by
    // ±40 KB (under 14 bytes a request). A few bytes kept per request would show.
    expect((heaps[2]! - heaps[1]!) / requests).toBeLessThan(32);
  });
});
