// Finds the headless Chromium the page's browser tests drive, once per run before any test file:
// Debian's when it is installed, else the one @sparticuz/chromium ships inside its npm package,
// unpacked into a folder of that version's own (docs/development.md#tests).
import { createHash } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';

export interface Browser {
  /** The chromium binary. */
  executablePath: string;
  /** A fontconfig file naming the fonts it draws text with, or undefined for the system's. */
  fontconfig?: string;
}

declare module 'vitest' {
  export interface ProvidedContext {
    browser: Browser;
  }
}

const DEBIAN = '/usr/bin/chromium';

export default async function setup(project: TestProject): Promise<void> {
  project.provide('browser', existsSync(DEBIAN) ? { executablePath: DEBIAN } : await packaged());
}

/**
 * The package's Chromium, unpacked once per version: into a folder of its own made beside the
 * final one and renamed into place, so two runs unpacking at once, or one killed half-way, never
 * leave a half-written binary where the next run looks.
 */
async function packaged(): Promise<Browser> {
  const version = installed();
  const home = join(tmpdir(), `sms-send-chromium-${version}`);
  const binary = join(home, 'chromium');
  if (!whole(binary)) {
    const partial = `${home}.${process.pid}`;
    await rm(partial, { recursive: true, force: true });
    await mkdir(partial, { recursive: true });
    await unpack(partial);
    await rm(home, { recursive: true, force: true });
    await rename(partial, home).catch(async () => {
      // Another run put the same version in place first.
      await rm(partial, { recursive: true, force: true });
    });
  }
  if (!whole(binary)) throw new Error(`@sparticuz/chromium did not unpack into ${home}`);
  // Text is drawn with the fonts the package ships (and the system's, where there are any): the
  // same glyphs on every machine, and text at all on one without fonts.
  const fontconfig = join(home, 'fonts.conf');
  await writeFile(
    fontconfig,
    '<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n<fontconfig>\n' +
      `  <dir>${join(home, 'fonts')}</dir>\n  <dir>/usr/share/fonts</dir>\n` +
      `  <cachedir>${join(home, 'font-cache')}</cachedir>\n</fontconfig>\n`,
  );
  return { executablePath: binary, fontconfig };
}

/** The package unpacks into the system's temporary folder: pointed, for the call, at `into`. */
async function unpack(into: string): Promise<void> {
  const saved = process.env.TMPDIR;
  process.env.TMPDIR = into;
  try {
    const { default: chromium } = await import('@sparticuz/chromium');
    await chromium.executablePath();
  } finally {
    if (saved === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = saved;
  }
}

/** A binary a killed unpack did not leave empty. */
function whole(path: string): boolean {
  try {
    return statSync(path).size > 1024 * 1024;
  } catch {
    return false;
  }
}

/**
 * The installed copy of the package, as a short key: its entry point's path, size and time. A
 * reinstall or another version unpacks afresh rather than reuse another version's binary.
 */
function installed(): string {
  const entry = createRequire(import.meta.url).resolve('@sparticuz/chromium');
  const { size, mtimeMs } = statSync(entry);
  return createHash('sha256').update(`${entry}\0${size}\0${mtimeMs}`).digest('hex').slice(0, 12);
}
