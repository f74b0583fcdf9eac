// npm's prepare step: builds dist/ unless it is newer than every source file. npx runs prepare
// again when it is asked for this checkout's own command (it installs the checkout into its
// cache to do so): with dist/ already built by `npm install`, the quick start does not rebuild.
// A clone installed before `npm install` (`npm install -g .`) has no TypeScript to build with:
// that ends in one line saying what to run, not in a stack trace.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));

/** The newest modification time among a folder's files, or a single file's. */
function newest(path) {
  const stat = statSync(path, { throwIfNoEntry: false });
  if (stat === undefined) return 0;
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(0, ...readdirSync(path).map((name) => newest(join(path, name))));
}

/**
 * Whether `npm run build` finds tsc where npm looks: node_modules/.bin of this folder and of
 * every folder above it, then PATH.
 */
function hasTsc() {
  const folders = [];
  for (let dir = root; ; dir = dirname(dir)) {
    folders.push(join(dir, 'node_modules', '.bin'));
    if (dirname(dir) === dir) break;
  }
  folders.push(...(process.env.PATH ?? '').split(delimiter).filter(Boolean));
  const names = process.platform === 'win32' ? ['tsc.cmd', 'tsc'] : ['tsc'];
  return folders.some((folder) => names.some((name) => existsSync(join(folder, name))));
}

/** One line on stderr and the exit code: npm prints its own lines after it. */
function fail(line, code = 1) {
  process.stderr.write(`${line}\n`);
  process.exit(code);
}

const sources = Math.max(
  ...['src', 'package.json', 'tsconfig.json', 'tsconfig.build.json'].map((p) =>
    newest(join(root, p)),
  ),
);
const built = statSync(join(root, 'dist', 'index.js'), { throwIfNoEntry: false })?.mtimeMs ?? 0;
if (built < sources) {
  if (!hasTsc()) {
    fail(
      `sms-send is not built, and TypeScript (tsc) is not installed in ${root} to build it: ` +
        'run `npm install` there first, then run this command again.',
    );
  }
  try {
    execFileSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' });
  } catch (error) {
    // The build's own errors are above; the stack of this script would say nothing more.
    fail('sms-send could not be built (the errors are above).', error.status ?? 1);
  }
}
