// Standard input is read twice (validate, then send), so it is first copied to a private temp file.
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { DiskFile, makeScratchFolder } from '../shared/disk.js';

export interface Spooled {
  path: string;
  remove(): Promise<void>;
}

export async function spoolStream(input: Readable): Promise<Spooled> {
  const dir = await makeScratchFolder('sms-send-stdin-');
  const path = join(dir, 'stdin');
  const remove = () => rm(dir, { recursive: true, force: true });
  try {
    const file = await DiskFile.open(path, 'wx');
    try {
      for await (const chunk of input) file.writeBytes(chunk as Buffer);
    } finally {
      await file.close();
    }
  } catch (error) {
    await remove();
    throw error;
  }
  return { path, remove };
}
