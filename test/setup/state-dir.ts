// Every test gets its own campaign state directory, so no test reads or writes a real one (or another test's).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach } from 'vitest';

function fresh(): string {
  return mkdtempSync(join(tmpdir(), 'sms-send-state-'));
}

// For work done in beforeAll hooks; each test then gets a folder of its own.
const fileLevel = fresh();
process.env.SMS_SEND_STATE_DIR = fileLevel;
let current: string | undefined;

beforeEach(() => {
  current = fresh();
  process.env.SMS_SEND_STATE_DIR = current;
});

afterEach(() => {
  process.env.SMS_SEND_STATE_DIR = fileLevel;
  if (current) rmSync(current, { recursive: true, force: true });
  current = undefined;
});

afterAll(() => rmSync(fileLevel, { recursive: true, force: true }));
