// Finds and reads the config file with cosmiconfig; checking it is schema.ts's job.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { cosmiconfig } from 'cosmiconfig';
import { UsageError } from '../shared/errors.js';

export const MODULE_NAME = 'sms-send';

/** Explicit so a stray config format never changes behaviour between versions. */
export const SEARCH_PLACES = [
  'package.json',
  '.sms-sendrc',
  '.sms-sendrc.json',
  '.sms-sendrc.yaml',
  '.sms-sendrc.yml',
  'sms-send.config.js',
  'sms-send.config.mjs',
  'sms-send.config.cjs',
];

/**
 * The folder cosmiconfig's global search reads the user's own config from: env-paths' config
 * folder for "sms-send" (what cosmiconfig asks it for), as it reads the environment.
 */
export function userConfigFolder(
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
): string {
  const home = homedir();
  if (platform === 'darwin') return join(home, 'Library', 'Preferences', MODULE_NAME);
  if (platform === 'win32') {
    return join(env.APPDATA ?? join(home, 'AppData', 'Roaming'), MODULE_NAME, 'Config');
  }
  return join(env.XDG_CONFIG_HOME || join(home, '.config'), MODULE_NAME);
}

export interface LoadedConfig {
  filepath: string;
  raw: unknown;
}

/**
 * Loads `explicitPath` when given, else searches upward from `cwd` to the home folder (or to the
 * root, outside it), then in the user's `$XDG_CONFIG_HOME/sms-send/` (`config.json` and the other
 * names cosmiconfig knows): cosmiconfig's global strategy, so a cron job run from `/` still finds
 * the user's settings, and a project's own config wins over them.
 */
export async function loadConfigFile(
  cwd: string,
  explicitPath?: string,
): Promise<LoadedConfig | undefined> {
  try {
    // Made inside the try: cosmiconfig reads the working folder's package.json (for its own
    // settings) as the explorer is made, and that file may not parse either.
    const explorer = cosmiconfig(MODULE_NAME, {
      searchPlaces: SEARCH_PLACES,
      searchStrategy: 'global',
      cache: false,
    });
    const result = explicitPath ? await explorer.load(explicitPath) : await explorer.search(cwd);
    if (!result) return undefined;
    return { filepath: result.filepath, raw: result.isEmpty ? {} : result.config };
  } catch (error) {
    const where = explicitPath ?? cwd;
    if (explicitPath && (error as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new UsageError(`config file ${explicitPath} does not exist`, 'config');
    }
    // A module's SyntaxError names its line on some Node lines only: then the parser is asked.
    const named = syntaxProblem(error);
    const syntax =
      named && /:\d+: /.test(named) ? named : ((await moduleSyntaxProblem(error)) ?? named);
    if (syntax) throw new UsageError(`cannot read config ${syntax}`, 'config');
    const reason = error instanceof Error ? error.message : String(error);
    throw new UsageError(`cannot read config (${where}): ${reason}`, 'config');
  }
}

/**
 * A config file that does not parse, as `file:line:column: what is wrong`, and never a word of
 * the file's text: the parsers quote the lines around the fault (a code frame, an excerpt), and
 * those lines may hold the password.
 */
export function syntaxProblem(error: unknown): string | undefined {
  if (!(error instanceof Error)) return undefined;
  const file = (error as { filepath?: unknown }).filepath;
  if (typeof file !== 'string') return undefined;
  const yaml = error as { reason?: unknown; mark?: { line?: unknown; column?: unknown } };
  if (error.name === 'YAMLException' && typeof yaml.reason === 'string') {
    const { line, column } = yaml.mark ?? {};
    const at =
      typeof line === 'number' && typeof column === 'number' ? `:${line + 1}:${column + 1}` : '';
    return `${file}${at}: ${yaml.reason}`;
  }
  if (error.name === 'JSONError') return `${file}${jsonFault(file)}`;
  if (error.name === 'SyntaxError') {
    // Node names the file and line on the stack's first line: `/path/sms-send.config.js:3`.
    const line = error.stack?.startsWith(`${file}:`)
      ? /^:(\d+)/.exec(error.stack.slice(file.length))?.[1]
      : undefined;
    return `${file}${line ? `:${line}` : ''}: ${error.message}`;
  }
  return undefined;
}

/** `:line:column: reason` of a JSON file that does not parse, V8's excerpt of the text left out. */
function jsonFault(file: string): string {
  let text = '';
  try {
    text = readFileSync(file, 'utf8');
    JSON.parse(text);
    return ': not valid JSON';
  } catch (error) {
    if (!(error instanceof SyntaxError)) return ': not valid JSON';
    const position = /at position (\d+)/.exec(error.message)?.[1];
    const reason = error.message
      .replace(/, (\.\.\.)?".*" is not valid JSON$/s, '')
      .replace(/ in JSON at position \d+.*$/s, '');
    if (position === undefined) return `: ${reason}`;
    const before = text.slice(0, Number(position)).split('\n');
    return `:${before.length}:${before.at(-1)!.length + 1}: ${reason}`;
  }
}

/**
 * An ES module config that does not parse: cosmiconfig falls back to require() after import()
 * fails, and on Node lines that can require() a module, that second error (a loading cycle) hides
 * the first. `node --check` on the file gives the parser's own words and place; only those are
 * kept, never the line of text it quotes.
 */
async function moduleSyntaxProblem(error: unknown): Promise<string | undefined> {
  const file = (error as { filepath?: unknown } | undefined)?.filepath;
  if (typeof file !== 'string' || !/\.m?js$/.test(file)) return undefined;
  const stderr = await new Promise<string>((done) => {
    execFile(process.execPath, ['--check', file], { timeout: 10_000 }, (_e, _out, err) =>
      done(String(err)),
    );
  });
  const reason = /^SyntaxError: (.*)$/m.exec(stderr)?.[1];
  if (reason === undefined) return undefined;
  const lines = stderr.split('\n');
  const at = lines.findIndex((line) => line.startsWith(`${file}:`));
  const line = at === -1 ? undefined : /^:(\d+)$/.exec(lines[at]!.slice(file.length))?.[1];
  const caret = at === -1 ? -1 : (lines[at + 2] ?? '').indexOf('^');
  const place = line === undefined ? '' : `:${line}${caret === -1 ? '' : `:${caret + 1}`}`;
  return `${file}${place}: ${reason}`;
}
