// In a clone, links the command into node_modules/.bin as an install of the package would, so
// `npx sms-send` runs this checkout at once (npx would otherwise build a copy of it into its cache).
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const bins = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).bin;
const folder = join(root, 'node_modules', '.bin');
// Only where dependencies were installed into this checkout: never while npm packs or publishes.
if (existsSync(join(root, 'node_modules'))) {
  mkdirSync(folder, { recursive: true });
  for (const [name, file] of Object.entries(bins)) {
    const link = join(folder, name);
    rmSync(link, { force: true });
    symlinkSync(relative(folder, join(root, file)), link);
  }
}
