// Every test gets its own campaign state directory (and an empty user config folder), so no test reads or writes a real one (or another test's).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach } from 'vitest';

function fresh(): string {
  return mkdtempSync(join(tmpdir(), 'sms-send-state-'));
}

// The user-level config folder ($XDG_CONFIG_HOME/sms-send) is searched too: never the real one.
process.env.XDG_CONFIG_HOME = mkdtempSync(join(tmpdir(), 'sms-send-xdg-config-'));

// For work done in beforeAll hooks; each test then gets a folder of its own.
const fileLevel = fresh();
process.env.SMS_SEND_STATE_DIR = fileLevel;
// By test: concurrent tests share process.env, so each removes only its own folder (and tests
// that run concurrently over the same content pass a state directory per run themselves).
const folders = new Map<string, string>();

beforeEach(({ task }) => {
  const folder = fresh();
  folders.set(task.id, folder);
  process.env.SMS_SEND_STATE_DIR = folder;
});

afterEach(({ task }) => {
  const folder = folders.get(task.id);
  folders.delete(task.id);
  if (process.env.SMS_SEND_STATE_DIR === folder) process.env.SMS_SEND_STATE_DIR = fileLevel;
  if (folder) rmSync(folder, { recursive: true, force: true });
});

afterAll(() => {
  rmSync(fileLevel, { recursive: true, force: true });
  rmSync(process.env.XDG_CONFIG_HOME!, { recursive: true, force: true });
});
