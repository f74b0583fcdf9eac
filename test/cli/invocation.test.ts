// The name printed commands give the program: bare only when the user's shell finds this very
// program by it, `npx sms-send` otherwise.
import { describe, expect, it } from 'vitest';
import { programName, type InvocationFacts } from '../../src/cli/invocation.js';

const INSTALLED = '/usr/lib/node_modules/restsms-send/bin/sms-send.js';
const CLONE = '/home/ann/sms-send/bin/sms-send.js';
const PROJECT = '/home/ann/shop/node_modules/restsms-send/bin/sms-send.js';
const FETCHED = '/home/ann/.npm/_npx/3f2a/node_modules/restsms-send/bin/sms-send.js';

/** A file system of symlinks: each path to the real path it resolves to. */
const FILES: Record<string, string> = {
  [INSTALLED]: INSTALLED,
  [CLONE]: CLONE,
  [PROJECT]: PROJECT,
  [FETCHED]: FETCHED,
  '/home/ann/.npm/_npx/3f2a/node_modules/.bin/sms-send': FETCHED,
  '/usr/bin/sms-send': INSTALLED,
  '/home/ann/shop/node_modules/.bin/sms-send': PROJECT,
  '/opt/other/bin/sms-send': '/opt/other/lib/sms-send/cli.js',
};

function facts(script: string | undefined, path: string, npmCommand?: string): InvocationFacts {
  return { script, path, npmCommand, packageName: 'restsms-send', realpath: (p) => FILES[p] };
}

describe('programName', () => {
  it.each([
    [
      'installed on PATH (npm install -g)',
      facts('/usr/bin/sms-send', '/usr/local/bin:/usr/bin'),
      'sms-send',
    ],
    ['installed, its script named by its real path', facts(INSTALLED, '/usr/bin'), 'sms-send'],
    [
      'through npx, even when also installed',
      facts('/usr/bin/sms-send', '/usr/bin', 'exec'),
      'npx sms-send',
    ],
    ['from a clone (node bin/sms-send.js)', facts(CLONE, '/usr/local/bin:/bin'), 'npx sms-send'],
    ['from a clone while another version is installed', facts(CLONE, '/usr/bin'), 'npx sms-send'],
    [
      "from a project's node_modules/.bin",
      facts('/home/ann/shop/node_modules/.bin/sms-send', '/usr/local/bin'),
      'npx sms-send',
    ],
    [
      "by an npm script, which puts the project's .bin on PATH",
      facts(PROJECT, '/home/ann/shop/node_modules/.bin:/usr/local/bin', 'run-script'),
      'npx sms-send',
    ],
    [
      'another program named sms-send first on PATH',
      facts(INSTALLED, '/opt/other/bin:/usr/bin'),
      'npx sms-send',
    ],
    [
      'fetched by npx for this run: a bare npx sms-send would fetch another package',
      facts(
        '/home/ann/.npm/_npx/3f2a/node_modules/.bin/sms-send',
        '/home/ann/.npm/_npx/3f2a/node_modules/.bin:/usr/bin',
        'exec',
      ),
      'npx -p restsms-send sms-send',
    ],
    ['no script known', facts(undefined, '/usr/bin'), 'npx sms-send'],
    ['no PATH', facts(INSTALLED, ''), 'npx sms-send'],
  ])('%s', (_name, given, expected) => {
    expect(programName(given)).toBe(expected);
  });
});
