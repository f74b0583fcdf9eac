// How the user ran sms-send, so that every command printed for them runs where they are: the bare
// name when that name on PATH is this program, `npx sms-send` otherwise (a clone, a project's
// node_modules), and `npx -p <package> sms-send` when npx fetched it for the run: there a bare
// `npx sms-send` would fetch the registry's `sms-send`, another package. Decided once from the
// process's facts; commands get the result as data.
import { realpathSync } from 'node:fs';
import { delimiter, join, sep } from 'node:path';
import type { NextStep } from '../shared/errors.js';
import { commandText, shellWord, type Program } from '../shared/shell.js';
import { SETTING_KEYS, SETTINGS, type SettingSpec } from '../config/table.js';
import { maskUserInfo } from '../shared/url.js';

/** The program as the user runs it, and the arguments of this run (for "the same, with --resume"). */
export interface Invocation {
  /** `sms-send` or `npx sms-send`. */
  program: string;
  args: readonly string[];
}

/** What the decision looks at; `realpath` answers undefined for a path that does not exist. */
export interface InvocationFacts {
  /** The script node runs (process.argv[1]). */
  script: string | undefined;
  /** The PATH the user's shell searches. */
  path: string | undefined;
  /** npm's `npm_command`: `exec` when run through npx or `npm exec`. */
  npmCommand: string | undefined;
  /** This package's name on the registry. */
  packageName: string;
  realpath: (path: string) => string | undefined;
}

/** The bare name is right only when the shell finds it, and finds this very program. */
export function programName(facts: InvocationFacts): string {
  const script = facts.script === undefined ? undefined : facts.realpath(facts.script);
  // npx installs what it fetches under npm's cache, in an `_npx` folder.
  if (script?.split(/[\\/]/).includes('_npx')) return `npx -p ${facts.packageName} sms-send`;
  if (facts.npmCommand === 'exec' || script === undefined) return 'npx sms-send';
  for (const dir of (facts.path ?? '').split(delimiter)) {
    // npm puts a project's node_modules/.bin on the PATH of what it runs; the user's shell
    // does not have it.
    if (dir === '' || isProjectBin(dir)) continue;
    const found = facts.realpath(join(dir, 'sms-send'));
    if (found === undefined) continue;
    return found === script ? 'sms-send' : 'npx sms-send';
  }
  return 'npx sms-send';
}

function isProjectBin(dir: string): boolean {
  return dir.replace(/[\\/]+$/, '').endsWith(`node_modules${sep}.bin`);
}

/** This process's invocation, for `argv` as node gives it (node, the script, the arguments). */
export function currentInvocation(packageName: string, argv: readonly string[]): Invocation {
  const program = programName({
    packageName,
    script: argv[1],
    path: process.env.PATH,
    npmCommand: process.env.npm_command,
    realpath: (path) => {
      try {
        return realpathSync(path);
      } catch {
        return undefined;
      }
    },
  });
  return { program, args: argv.slice(2) };
}

/**
 * The command line of a next step, as the user would type it: theirs changed, or another one. A
 * password in a URL (a proxy's) is masked: these lines land in cron mail and CI logs.
 */
export function commandFor(invocation: Invocation, next: Omit<NextStep, 'say'>): string {
  if (next.args) return commandText(programOf(invocation), next.args);
  const drop = new Set([...(next.drop ?? []), ...(next.add ?? [])]);
  const args = shownArgs(invocation.args).filter((arg) => !drop.has(arg));
  return [invocation.program, ...args.map(shellWord), ...(next.add ?? [])].join(' ');
}

/**
 * A command line's arguments as output shows them: a URL setting's value (`--state-url`,
 * `--proxy`, `--endpoint`) masked whole as the setting shows it, valid or not; any other word
 * only where a `scheme://user:pass@` stands in it, so a template or a value is printed as typed.
 */
export function shownArgs(args: readonly string[]): string[] {
  const urls = urlFlags();
  return args.map((arg, i) => {
    const [name, ...value] = arg.split('=');
    const shown = urls.get(name!);
    if (shown && value.length > 0) return `${name}=${shown(value.join('='))}`;
    const flag = urls.get(args[i - 1]!);
    return flag ? flag(arg) : maskUserInfo(arg);
  });
}

/** The flags whose value is a URL, and how each setting shows its value. */
function urlFlags(): Map<string, (value: string) => string> {
  const flags = new Map<string, (value: string) => string>();
  for (const key of SETTING_KEYS) {
    const spec: SettingSpec = SETTINGS[key];
    const [name] = (spec.flag ?? '').split(' ');
    if (name && spec.shown) flags.set(name, spec.shown);
  }
  return flags;
}

/**
 * Under a command printed for the user: how to run it all the same where its URL password was
 * masked, and that the same records must be piped in again where it reads standard input.
 */
export function commandNotes(command: string): string {
  const stdin = command.split(' ').includes('-')
    ? '\n  (it reads standard input: pipe the same records in again, or name their file)'
    : '';
  return maskedNote(command) + stdin;
}

/** Under a command whose URL password was masked: how to run it all the same. */
function maskedNote(command: string): string {
  return command.includes('***@') || command.includes('password=***')
    ? '\n  (a password in a URL is shown as ***: type it in again, or keep the URL in its ' +
        'environment variable (SMS_SEND_PROXY, SMS_SEND_STATE_URL) or the config file, which ' +
        'the command then need not carry)'
    : '';
}

/**
 * The program as the user runs it, with the flags of their command line that say where the
 * campaigns' state is: another command written for them carries them, or it would look elsewhere.
 */
export function programOf(invocation: Invocation): Program {
  const flags = stateFlags();
  const state = shownArgs(flagsOf(invocation.args, flags));
  const carry: string[][] = [];
  for (let i = 0; i < state.length; i++) {
    const arg = state[i]!;
    carry.push(flags.get(arg) === true ? [arg, state[++i]!] : [arg]);
  }
  return { name: invocation.program, carry };
}

/** Flags that say where the campaigns' state is (not how a send uses it), each taking a value. */
function stateFlags(): Map<string, boolean> {
  const flags = new Map([
    ['--config', true],
    ['--profile', true],
  ]);
  for (const key of ['stateDir', 'stateUrl'] as const) {
    const spec: SettingSpec = SETTINGS[key];
    const [name] = (spec.flag ?? '').split(' ');
    if (name) flags.set(name, true);
  }
  return flags;
}

/** Flags that say where a campaign goes and where its state is, and whether each takes a value. */
function gatewayFlags(): Map<string, boolean> {
  const flags = new Map<string, boolean>([
    ['--simulate', false],
    ['--allow-insecure', false],
    ['--password-stdin', false],
    ['--config', true],
    ['--profile', true],
  ]);
  for (const key of SETTING_KEYS) {
    const spec: SettingSpec = SETTINGS[key];
    if (spec.flag === undefined || (spec.group !== 'gateway' && spec.group !== 'state')) continue;
    const [name] = spec.flag.split(/[ ,]/).filter((part) => part.startsWith('--'));
    if (name !== undefined) flags.set(name, spec.flag.includes('<'));
  }
  return flags;
}

/**
 * Of a command line's arguments, those that say where the campaign went (`--endpoint URL`,
 * `--simulate`, `--config`, `--state-dir` …), for a follow-up command that must go there too.
 */
export function gatewayArgs(args: readonly string[]): string[] {
  return shownArgs(flagsOf(args, gatewayFlags()));
}

/** The arguments that are `flags` (with the value each takes), in their order. */
function flagsOf(args: readonly string[], flags: Map<string, boolean>): string[] {
  const kept: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const [name] = arg.split('=');
    const takesValue = flags.get(name!);
    if (takesValue === undefined) continue;
    kept.push(arg);
    if (takesValue && !arg.includes('=') && i + 1 < args.length) kept.push(args[++i]!);
  }
  return kept;
}
