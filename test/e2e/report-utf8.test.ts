// The reproduction end to end: one lone surrogate in the input must not make the JSON report unreadable.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/files.js';

let dir: Awaited<ReturnType<typeof tempDir>>;
beforeAll(async () => {
  dir = await tempDir();
});
afterAll(() => dir.remove());

it('--report r.json with a lone surrogate in a skipped-invalid record is strict UTF-8 JSON', async () => {
  // Written as JSON escapes, so the input file itself is valid UTF-8; the parsed value is not.
  await writeFile(
    join(dir.path, 'in.json'),
    '[{"to":"\\ud800","text":"x"},{"to":"4741234567","text":"ok"}]\n',
  );
  const result = await runCli(
    ['in.json', '--skip-invalid', '--report', 'r.json', '--simulate', '--yes'],
    { cwd: dir.path, env: { SMS_SEND_STATE_DIR: join(dir.path, 'state') } },
  );
  expect(result.code).toBe(1);
  const bytes = await readFile(join(dir.path, 'r.json'));
  const text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  // What jq refuses: an escaped surrogate with no partner.
  expect(text).not.toMatch(/\\u[dD][89a-fA-F]/);
  const rows = JSON.parse(text) as { to: string; outcome: string }[];
  expect(rows.map((r) => [r.to, r.outcome])).toEqual([
    ['\ufffd', 'invalid'],
    ['4741234567', 'accepted'],
  ]);
});
