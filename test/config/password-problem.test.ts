// A password that cannot be had (a passwordFile that cannot be read, a passwordEnv variable not
// set) blocks only what talks to a real gateway: the settings resolve with a warning naming the
// key, where it was set and why, and the gateway target refuses with the same words.
import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gatewayAccess } from '../../src/campaign/target.js';
import { resolveSettings } from '../../src/config/resolve.js';
import { UsageError } from '../../src/shared/errors.js';
import { tempDir } from '../helpers/files.js';

let dir: Awaited<ReturnType<typeof tempDir>>;
beforeAll(async () => {
  dir = await tempDir();
});
afterAll(async () => {
  await dir.remove();
});

/** A folder with a `.sms-sendrc.json` of `config` (and a folder `a-folder` beside it). */
async function project(name: string, config: Record<string, unknown>): Promise<string> {
  const cwd = join(dir.path, name);
  await mkdir(join(cwd, 'a-folder'), { recursive: true });
  await writeFile(
    join(cwd, '.sms-sendrc.json'),
    JSON.stringify({ endpoint: 'https://gw.example', username: 'u', ...config }),
  );
  return cwd;
}

describe('a password that cannot be had is a warning until a real gateway needs it', () => {
  it.each([
    [
      'missing file',
      { passwordFile: 'nowhere.txt' },
      /cannot read .*nowhere\.txt \(ENOENT: no such file\)/,
    ],
    [
      'a folder',
      { passwordFile: 'a-folder' },
      /cannot read .*a-folder \(EISDIR: a folder, not a file\)/,
    ],
    [
      'unset variable',
      { passwordEnv: 'NO_SUCH_SECRET_VAR' },
      /the environment variable NO_SUCH_SECRET_VAR is not set/,
    ],
  ])('%s', async (name, config, reason) => {
    const cwd = await project(name.replace(/ /g, '-'), config);
    const key = Object.keys(config)[0]!;
    const settings = await resolveSettings({ cwd, env: {}, flags: {} });
    // The key, the file that set it, and the reason.
    const where = `${key} (${join(cwd, '.sms-sendrc.json')})`;
    expect(settings.passwordProblem).toContain(where);
    expect(settings.passwordProblem).toMatch(reason);
    expect(settings.warnings.join('\n')).toContain(settings.passwordProblem);
    // The simulator needs no password; the real gateway refuses, saying why.
    expect(gatewayAccess(settings, { simulate: true }).label).toBe('the built-in simulator');
    let refused: unknown;
    try {
      gatewayAccess(settings, {});
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(UsageError);
    expect((refused as UsageError).exitCode).toBe(2);
    expect((refused as UsageError).message).toContain(settings.passwordProblem);
  });

  it('SMS_SEND_PASSWORD outranks a passwordFile that cannot be read: no warning', async () => {
    const cwd = await project('outranked', { passwordFile: 'nowhere.txt' });
    const settings = await resolveSettings({
      cwd,
      env: { SMS_SEND_PASSWORD: 'pw-1234' },
      flags: {},
    });
    expect(settings.passwordProblem).toBeUndefined();
    expect(settings.warnings).toEqual([]);
  });

  it('the sample config resolves as shipped, its password file missing', async () => {
    const sample = resolve('samples/.sms-sendrc.example.json');
    const settings = await resolveSettings({
      cwd: dir.path,
      // Its passwordFile, ~/.config/sms-send/password, is not on this machine.
      env: {},
      flags: {},
      configPath: sample,
    });
    expect(settings.endpoint).toBe('https://smsgw.intele.no/pushsms/rest');
    expect(gatewayAccess(settings, { simulate: true }).label).toBe('the built-in simulator');
  });
});
