// npm's prepare step: builds dist/ unless it is newer than every source file. npx runs prepare
// again when it is asked for this checkout's own command (it installs the checkout into its
// cache to do so): with dist/ already built by `npm install`, the quick start does not rebuild.
import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;

/** The newest modification time among a folder's files, or a single file's. */
function newest(path) {
  const stat = statSync(path, { throwIfNoEntry: false });
  if (stat === undefined) return 0;
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(0, ...readdirSync(path).map((name) => newest(join(path, name))));
}

const sources = Math.max(
  ...['src', 'package.json', 'tsconfig.json', 'tsconfig.build.json'].map((p) =>
    newest(join(root, p)),
  ),
);
const built = statSync(join(root, 'dist', 'index.js'), { throwIfNoEntry: false })?.mtimeMs ?? 0;
if (built < sources) execFileSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' });
