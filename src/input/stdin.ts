// Standard input is read twice (validate, then send), so it is first copied to a private temp file.
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

export interface Spooled {
  path: string;
  remove(): Promise<void>;
}

export async function spoolStream(input: Readable): Promise<Spooled> {
  const dir = await mkdtemp(join(tmpdir(), 'sms-send-stdin-'));
  const path = join(dir, 'stdin');
  await pipeline(input, createWriteStream(path, { mode: 0o600 }));
  return { path, remove: () => rm(dir, { recursive: true, force: true }) };
}
