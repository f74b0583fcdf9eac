// Standard input is read twice (validate, then send), so it is first copied to a private temp file.
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { DiskFile, makeScratchFolder } from '../shared/disk.js';

export interface Spooled {
  path: string;
  /** Copies the stream to `path`. */
  fill(input: Readable): Promise<void>;
  remove(): Promise<void>;
}

/** A private place for standard input, named before anything is read into it. */
export async function stdinSpool(): Promise<Spooled> {
  const dir = await makeScratchFolder('sms-send-stdin-');
  const path = join(dir, 'stdin');
  const remove = () => rm(dir, { recursive: true, force: true });
  async function fill(input: Readable): Promise<void> {
    const file = await DiskFile.open(path, 'wx');
    try {
      for await (const chunk of input) file.writeBytes(chunk as Buffer);
    } finally {
      await file.close();
    }
  }
  return { path, fill, remove };
}

/** The stream, copied to a private temp file. */
export async function spoolStream(input: Readable): Promise<Spooled> {
  const spooled = await stdinSpool();
  try {
    await spooled.fill(input);
  } catch (error) {
    await spooled.remove();
    throw error;
  }
  return spooled;
}
