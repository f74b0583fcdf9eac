// docs/api-example.mjs (the example of docs/api.md) runs as written, with the package's name
// pointed at this build: it sends the sample campaign and prints its counts, and exits with the
// error's code when the input is refused.
import { spawn } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { collect, cleanEnv } from '../helpers/cli.js';
import { tempDir } from '../helpers/files.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const ENTRY = pathToFileURL(join(ROOT, 'dist/index.js')).href;

let dir: { path: string; remove: () => Promise<void> };
beforeEach(async () => {
  dir = await tempDir();
});
afterEach(() => dir.remove());

/** The example with `'restsms-send'` resolved to the built entry, run with `args`. */
async function runExample(args: string[]) {
  const source = await readFile(join(ROOT, 'docs/api-example.mjs'), 'utf8');
  expect(source).toContain("from 'restsms-send'");
  const script = join(dir.path, 'example.mjs');
  await writeFile(script, source.replaceAll("'restsms-send'", `'${ENTRY}'`));
  const child = spawn(process.execPath, [script, ...args], {
    cwd: dir.path,
    // cleanEnv() gives the child this test's own SMS_SEND_STATE_DIR, never the user's.
    env: cleanEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return collect(child);
}

describe('docs/api-example.mjs', () => {
  it('is the example docs/api.md shows, as it is', async () => {
    const source = await readFile(join(ROOT, 'docs/api-example.mjs'), 'utf8');
    const page = await readFile(join(ROOT, 'docs/api.md'), 'utf8');
    expect(page).toContain(`\`\`\`js\n${source}\`\`\`\n`);
  });

  it('sends the sample campaign to its simulator and prints the counts', async () => {
    const result = await runExample([]);
    expect(result.stderr).toMatch(/^batch 1: 12 messages$/m);
    expect(result.stdout).toMatch(/^accepted +12$/m);
    expect(result.stdout).toMatch(/^invalid +0$/m);
    expect(result.code).toBe(0);
  });

  it("exits with the error's code when the input is refused", async () => {
    const input = join(dir.path, 'bad.csv');
    await writeFile(input, 'to,text\nnot-a-number,Hello\n');
    const result = await runExample([input]);
    expect(result.stderr).toMatch(/^not sent: .*cannot be sent/m);
    expect(result.code).toBe(2);
  });
});
