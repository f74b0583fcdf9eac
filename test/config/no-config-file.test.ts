// A profile asked for where no config file exists: the error says where files were looked for
// and how to make one, and exits 2 before anything is read or sent.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
    const xdg = join(dir.path, 'xdg');
    const error = await resolveSettings({
      cwd,
      env: { XDG_CONFIG_HOME: xdg },
      flags: {},
      profile: 'prod',
    }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).exitCode).toBe(2);
    const message = (error as UsageError).message;
    expect(message).toContain('profile "prod" requested but no config file was found');
    expect(message).toContain(`looked in ${cwd} and each folder above it for .sms-sendrc.json`);
    expect(message).toContain(`then for ${xdg}/sms-send/config.json`);
    expect(message).toContain('{"profiles":{"prod":{"endpoint":"https://…"}}}');
    expect(message).toContain('--config');
  });
});
