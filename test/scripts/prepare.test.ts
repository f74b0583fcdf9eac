// npm's prepare step in a clone that has no TypeScript (`npm install -g .` before `npm install`)
// ends in one line that says what to run, not in a stack trace; a built clone needs nothing.
import { spawnSync } from 'node:child_process';
import { cp, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/files.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
let clone: Awaited<ReturnType<typeof tempDir>>;

/** A fresh clone's files the step reads: no node_modules, no dist/. */
beforeEach(async () => {
  clone = await tempDir();
  for (const file of ['package.json', 'tsconfig.json', 'tsconfig.build.json']) {
    await cp(join(ROOT, file), join(clone.path, file));
  }
  await cp(join(ROOT, 'scripts', 'prepare.js'), join(clone.path, 'scripts', 'prepare.js'));
  await mkdir(join(clone.path, 'src'));
  await writeFile(join(clone.path, 'src', 'index.ts'), 'export {};\n');
});
afterEach(() => clone.remove());

/** The step as npm runs it, with a PATH that holds no tsc (an empty folder). */
function prepare() {
  const run = spawnSync(process.execPath, ['scripts/prepare.js'], {
    cwd: clone.path,
    // It builds, and sends nothing; were it to run sms-send, its state would stay in the clone.
    env: { PATH: join(clone.path, 'src'), SMS_SEND_STATE_DIR: join(clone.path, 'state') },
    encoding: 'utf8',
  });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

describe('npm prepare', () => {
  it('without TypeScript: one line naming npm install, exit 1', () => {
    const run = prepare();
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(
      `sms-send is not built, and TypeScript (tsc) is not installed in ${clone.path} to build it: ` +
        'run `npm install` there first, then run this command again.\n',
    );
  });

  it('built already (dist/ newer than the sources): nothing to do, no TypeScript needed', async () => {
    await mkdir(join(clone.path, 'dist'));
    await writeFile(join(clone.path, 'dist', 'index.js'), '');
    expect(prepare()).toEqual({ code: 0, stdout: '', stderr: '' });
  });
});
