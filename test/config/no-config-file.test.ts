// A profile asked for where no config file exists: the error says where files were looked for
// and how to make one, and exits 2 before anything is read or sent.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { homedir } from 'node:os';
import { userConfigFolder } from '../../src/config/load.js';
import { resolveSettings } from '../../src/config/resolve.js';
import { UsageError } from '../../src/shared/errors.js';
import { tempDir } from '../helpers/files.js';

let dir: Awaited<ReturnType<typeof tempDir>>;
beforeAll(async () => {
  dir = await tempDir();
});
afterAll(() => dir.remove());

describe('--profile with no config file', () => {
  it('names the folders searched, the user-level file, and a file that would do', async () => {
    const cwd = join(dir.path, 'project');
    // cosmiconfig reads the process's environment for the user-level folder, and so does the message.
    const xdg = join(dir.path, 'xdg');
    vi.stubEnv('XDG_CONFIG_HOME', xdg);
    const error = await resolveSettings({ cwd, env: {}, flags: {}, profile: 'prod' })
      .catch((caught: unknown) => caught)
      .finally(() => vi.unstubAllEnvs());
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).exitCode).toBe(2);
    const message = (error as UsageError).message;
    expect(message).toContain('profile "prod" requested but no config file was found');
    expect(message).toContain(
      `looked in ${cwd} and each folder above it (up to your home folder, or to / outside it) for .sms-sendrc.json (or package.json#sms-send, .sms-sendrc, .sms-sendrc.yaml, .sms-sendrc.yml, sms-send.config.js, sms-send.config.mjs, sms-send.config.cjs)`,
    );
    expect(message).toContain(`then in ${xdg}/sms-send for config.json`);
    expect(message).toContain('{"profiles":{"prod":{"endpoint":"https://…"}}}');
    expect(message).toContain('--config');
  });
});

describe('userConfigFolder', () => {
  it.each([
    ['linux', { XDG_CONFIG_HOME: '/x' }, '/x/sms-send'],
    ['darwin', {}, `${homedir()}/Library/Preferences/sms-send`],
  ] as const)('on %s', (platform, env, folder) => {
    expect(userConfigFolder(env, platform)).toBe(folder);
  });
});
