// The gateway client keeps undici's WebAssembly HTTP parser at V8's baseline tier, whose
// optimising compiles otherwise take ~40 MB of memory in the background: the largest single part
// of a send's peak RSS (see docs/benchmark.md#memory).
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/files.js';

const TS_LOADER = new URL('../helpers/ts-loader.js', import.meta.url).href;
const CHILD = fileURLToPath(new URL('../helpers/llhttp-memory.ts', import.meta.url));

let state: Awaited<ReturnType<typeof tempDir>>;
beforeAll(async () => {
  state = await tempDir();
});
afterAll(() => state.remove());

describe('the gateway client', () => {
  it('parses 300 responses without V8 building optimised code for llhttp', () => {
    const child = spawnSync(process.execPath, ['--import', TS_LOADER, CHILD, '300'], {
      encoding: 'utf8',
      env: { ...process.env, SMS_SEND_STATE_DIR: state.path },
    });
    expect(child.status, child.stderr).toBe(0);
    const peakCompilerBytes = Number(child.stdout.trim());
    // Measured: about 4 MB at the baseline tier, about 40 MB once llhttp is optimised.
    expect(peakCompilerBytes).toBeGreaterThan(0);
    expect(peakCompilerBytes).toBeLessThan(16 * 1024 * 1024);
  });
});
