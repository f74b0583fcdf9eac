// The config pipeline: load the file, check every layer against the schema, merge, apply cross-field rules, normalise.
import { readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, resolve as resolvePath } from 'node:path';
import { UsageError, type ErrorCode } from '../shared/errors.js';
import { checkPremium } from '../message/rules.js';
import { parseDuration } from '../shared/duration.js';
import { envLayer, envName, PROFILE_ENV } from './env.js';
import { proxiesOf } from '../gateway/proxy.js';
import { loadConfigFile, SEARCH_PLACES, userConfigFolder } from './load.js';
import { mergeLayers, type Layer } from './merge.js';
import { checkConfigFile, checkLayer, checkSecret, type ConfigProblem } from './schema.js';
import {
  canonicalTimeZone,
  machineTimeZone,
  parseDateTime,
  parseDays,
  parseHours,
  type SendWindow,
} from '../shared/window.js';
import type { Settings, TableSettings } from './settings.js';
import {
  BUILT_IN_DEFAULTS,
  flagName,
  SETTING_KEYS,
  SETTINGS,
  type FileSettings,
  type SettingKey,
  type SettingSpec,
} from './table.js';

export interface ResolveInput {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Only the flags the user actually passed, already named like config keys (unchecked). */
  flags: Record<string, unknown>;
  configPath?: string;
  profile?: string;
  /** A password read from stdin by `--password-stdin`. */
  stdinPassword?: string;
}

export async function resolveSettings(input: ResolveInput): Promise<Settings> {
  const loaded = await loadConfigFile(input.cwd, input.configPath);
  const warnings: string[] = [];
  const profileName = input.profile ?? input.env[PROFILE_ENV];
  if (!loaded && profileName) throw noConfigFile(profileName, input.cwd);
  const { layers, profiles } = fileLayers(loaded, profileName, warnings);
  layers.push(...commandLayers(input));
  const merged = mergeLayers(layers);
  const { password, passwordProblem } = checkMerged(merged, input, warnings);
  return {
    ...normalise(merged, input, { loaded, profileName, profiles, password, warnings }),
    ...(passwordProblem === undefined ? {} : { passwordProblem }),
  };
}

/** The built-in defaults, the config file and its profile, as layers; the file's profiles' keys. */
function fileLayers(
  loaded: Awaited<ReturnType<typeof loadConfigFile>>,
  profileName: string | undefined,
  warnings: string[],
): { layers: Layer[]; profiles: Record<string, string[]> } {
  const layers: Layer[] = [{ source: 'default', values: BUILT_IN_DEFAULTS }];
  let profiles: Record<string, string[]> = {};
  if (loaded) {
    const checked = checkConfigFile(loaded.raw);
    if (!checked.ok) {
      throw settingsError(loaded.filepath, checked.problems, 'config');
    }
    const { profiles: defined, ...top } = checked.value;
    profiles = Object.fromEntries(
      Object.entries(defined ?? {}).map(([name, values]) => [name, Object.keys(values)]),
    );
    layers.push({ source: loaded.filepath, values: besideFile(top, loaded.filepath) });
    if (profileName) {
      const profile = defined?.[profileName];
      if (!profile) {
        const known = Object.keys(profiles);
        throw new UsageError(
          `profile "${profileName}" is not defined in ${loaded.filepath}` +
            (known.length ? ` (defined: ${known.join(', ')})` : ' (it defines no profiles)'),
          'config',
        );
      }
      layers.push({
        source: `${loaded.filepath}#profiles.${profileName}`,
        values: besideFile(profile, loaded.filepath),
      });
    }
    const holdsPassword =
      top.password !== undefined ||
      Object.values(defined ?? {}).some((p) => p.password !== undefined);
    if (holdsPassword) warnIfReadable(loaded.filepath, warnings);
  }

  return { layers, profiles };
}

/** The environment's and the flags' layers. */
function commandLayers(input: ResolveInput): Layer[] {
  // The environment and the flags go through the same schema as a file, named as the user set them.
  const env = checkLayer(envLayer(input.env), envName);
  const flags = checkLayer(input.flags, (key) => flagName(key as SettingKey) ?? key);
  if (!env.ok || !flags.ok) {
    const all = [...(env.ok ? [] : env.problems), ...(flags.ok ? [] : flags.problems)];
    // A bad flag value is a usage error, like an unknown flag; a bad variable is configuration.
    throw settingsError('the settings', all, env.ok ? 'usage' : 'config');
  }
  return [
    { source: 'env', values: env.value },
    { source: 'flag', values: flags.value },
  ];
}

/** The rules across settings (password, premium price, --max-cost); answers the password. */
function checkMerged(
  merged: ReturnType<typeof mergeLayers>,
  input: ResolveInput,
  warnings: string[],
): { password?: string; passwordProblem?: string } {
  const values = merged.values;
  const problems: ConfigProblem[] = [];
  let passwordProblem: string | undefined;
  const password = resolvePassword(values, input, merged.sources, problems, warnings, (why) => {
    passwordProblem = why;
    warnings.push(`${why}: only a real gateway needs the password`);
  });
  const premium = checkPremium(Number(values.price ?? 0), Number(values.gateway));
  if (premium)
    problems.push({ path: describeSource('price', merged.sources.price), message: premium });
  if (values.maxCost !== undefined && values.pricePerSegment === undefined) {
    problems.push({
      path: describeSource('maxCost', merged.sources.maxCost),
      message:
        'needs a price per segment to estimate the cost: set pricePerSegment in the config file, or pass --price-per-segment',
    });
  }
  if (problems.length) {
    // --max-cost alone on the command line is a slip of the command line, not of a file.
    const flagOnly = problems.length === 1 && merged.sources.maxCost === 'flag';
    throw settingsError('the settings', problems, flagOnly ? 'usage' : 'config');
  }
  return { password, passwordProblem };
}

/** The merged values normalised into the Settings every command runs with. */
function normalise(
  merged: ReturnType<typeof mergeLayers>,
  input: ResolveInput,
  found: {
    loaded: Awaited<ReturnType<typeof loadConfigFile>>;
    profileName: string | undefined;
    profiles: Record<string, string[]>;
    password: string | undefined;
    warnings: string[];
  },
): Settings {
  const values = merged.values;
  const { loaded, profileName, profiles, password, warnings } = found;
  return {
    ...tableSettings(values),
    password,
    proxies: proxiesOf(
      values.proxy === undefined
        ? undefined
        : { url: values.proxy, from: describeSource('proxy', merged.sources.proxy) },
      input.env,
    ),
    caFile:
      values.caFile === undefined
        ? undefined
        : resolvePath(baseFor(merged.sources.caFile, input.cwd), expandHome(values.caFile)),
    defaults: {
      gateway: Number(values.gateway),
      originatorAddress: values.originatorAddress,
      price: Number(values.price ?? 0),
      messageType: values.messageType,
      validationPeriod: values.validationPeriod,
      category: values.category,
      deliveryReportUrl: values.deliveryReportUrl,
      customData: values.customData ?? {},
      serviceCode: values.serviceCode,
      serviceDescription: values.serviceDescription,
    },
    suppress: (values.suppress ?? []).map((label) => ({
      path: resolvePath(input.cwd, expandHome(label)),
      label,
    })),
    sendWindow: sendWindowOf(values),
    stateDir: resolvePath(
      baseFor(merged.sources.stateDir, input.cwd),
      expandHome(values.stateDir ?? defaultStateDir(input.env)),
    ),
    values,
    sources: merged.sources,
    configFile: loaded?.filepath,
    profile: profileName,
    profiles,
    warnings,
  };
}

/** The send window the settings describe, already checked by the schema; none without a limit. */
function sendWindowOf(values: FileSettings): SendWindow | undefined {
  const { window, days, notBefore } = values;
  if (window === undefined && days === undefined && notBefore === undefined) return undefined;
  const timeZone = canonicalTimeZone(values.timezone ?? machineTimeZone()) ?? 'UTC';
  const hours = window === undefined ? undefined : parseHours(window);
  const dayList = days === undefined ? undefined : parseDays(days);
  return {
    hours: typeof hours === 'string' ? undefined : hours,
    days: typeof dayList === 'string' ? undefined : dayList,
    timeZone,
    notBefore: notBefore === undefined ? undefined : parseDateTime(notBefore, timeZone),
    text: { hours: window?.trim(), days: days?.trim() },
  };
}

/**
 * The settings the table declares as themselves: a plain one as merged (normalised as its entry
 * says, left out when unset), a duration in milliseconds. Checked by the schema already.
 */
function tableSettings(values: FileSettings): TableSettings {
  const resolved: Record<string, unknown> = {};
  for (const key of SETTING_KEYS) {
    const spec: SettingSpec = SETTINGS[key];
    const value = values[key];
    if (spec.resolved === 'ms') resolved[`${key}Ms`] = parseDuration(value as string | number);
    if (spec.resolved !== undefined) continue;
    const normalised = spec.normalise ? spec.normalise(value) : value;
    if (normalised !== undefined) resolved[key] = normalised;
  }
  return resolved as TableSettings;
}

/** A setting named the way the user set it: `--price`, `SMS_SEND_…`, or the key and its file. */
function describeSource(key: SettingKey, source: string | undefined): string {
  if (source === 'flag') return flagName(key) ?? key;
  if (source === 'env') return envName(key);
  if (source === undefined || source === 'default') return key;
  return `${key} (${source})`;
}

/** A profile asked for with no config file to hold it: where files are looked for, how to make one. */
function noConfigFile(profile: string, cwd: string): UsageError {
  const others = SEARCH_PLACES.filter((name) => name !== '.sms-sendrc.json').map((name) =>
    name === 'package.json' ? 'package.json#sms-send' : name,
  );
  const example = JSON.stringify({ profiles: { [profile]: { endpoint: 'https://…' } } });
  return new UsageError(
    `profile "${profile}" requested but no config file was found: sms-send looked in ${cwd} and ` +
      `each folder above it (up to your home folder, or to / outside it) for .sms-sendrc.json (or ${others.join(', ')}), ` +
      `then in ${userConfigFolder()} for config.json (or config, config.yaml, config.js, …). ` +
      `Make one holding the profile, e.g. ${example} (see docs/configuration.md), or name one with --config.`,
    'config',
  );
}

/** `$XDG_STATE_HOME/sms-send`, or `~/.local/state/sms-send` when XDG_STATE_HOME is unset. */
export function defaultStateDir(env: NodeJS.ProcessEnv): string {
  const xdg = env.XDG_STATE_HOME;
  // The XDG spec says a relative value is invalid and must be ignored.
  const base = xdg && xdg.startsWith('/') ? xdg : `${homedir()}/.local/state`;
  return `${base}/sms-send`;
}

/** A relative path in a config file is relative to that file, so a config found upward still works. */
function baseFor(source: string | undefined, cwd: string): string {
  return source && source !== 'flag' && source !== 'env' && source !== 'default'
    ? dirname(source.split('#')[0]!)
    : cwd;
}

/**
 * A file's suppression lists made absolute against the file at once: lists add up over the
 * layers (merge.ts), so each must carry its own base.
 */
function besideFile(values: FileSettings, file: string): FileSettings {
  if (values.suppress === undefined) return values;
  const base = dirname(file);
  return { ...values, suppress: values.suppress.map((p) => resolvePath(base, expandHome(p))) };
}

function expandHome(path: string): string {
  return path.replace(/^~(?=$|\/)/, homedir());
}

/**
 * The password, or undefined. A password file that cannot be read (or a passwordEnv variable
 * that is not set) is no reason to refuse what needs no gateway (`sms-send config`, a dry run,
 * --simulate): it becomes a warning, and the reason a real gateway is refused (`passwordProblem`).
 */
function resolvePassword(
  values: FileSettings,
  input: ResolveInput,
  sources: Settings['sources'],
  problems: ConfigProblem[],
  warnings: string[],
  unavailable: (why: string) => void,
): string | undefined {
  // Whatever the source, the password meets the schema the table gives it, and a problem names
  // the source, never the value.
  const checked = (password: string, path: string): string | undefined => {
    const problem = checkSecret('password', password);
    if (problem) problems.push({ path, message: problem });
    return problem ? undefined : password;
  };
  if (input.stdinPassword !== undefined) {
    sources.password = 'stdin';
    return checked(input.stdinPassword, '--password-stdin');
  }
  // SMS_SEND_PASSWORD arrives through the env layer as `password`; it outranks file-based sources.
  if (sources.password === 'env') return values.password;
  if (values.passwordEnv) {
    const fromEnv = input.env[values.passwordEnv];
    if (fromEnv === undefined) {
      unavailable(
        `${describeSource('passwordEnv', sources.passwordEnv)}: the environment variable ${values.passwordEnv} is not set`,
      );
      return undefined;
    }
    sources.password = `env ${values.passwordEnv}`;
    return checked(fromEnv, `${values.passwordEnv} (named by passwordEnv)`);
  }
  if (values.passwordFile) {
    // Relative to the config file that names it, so a config found upward still finds its secret.
    const file = resolvePath(
      baseFor(sources.passwordFile, input.cwd),
      expandHome(values.passwordFile),
    );
    try {
      const secret = readFileSync(file, 'utf8').replace(/\r?\n$/, '');
      warnIfReadable(file, warnings);
      sources.password = file;
      return checked(secret, `passwordFile ${file}`);
    } catch (error) {
      unavailable(
        `${describeSource('passwordFile', sources.passwordFile)}: cannot read ${file} (${readFault(error)})`,
      );
      return undefined;
    }
  }
  return values.password;
}

/** Why a file could not be read, by its code: `ENOENT: no such file`. */
function readFault(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  const words: Record<string, string> = {
    ENOENT: 'no such file',
    EACCES: 'permission denied',
    EISDIR: 'a folder, not a file',
  };
  return code === undefined ? String(error) : `${code}${words[code] ? `: ${words[code]}` : ''}`;
}

/** A secret that group or others can read is one `ls -l` away from leaking. */
function warnIfReadable(file: string, warnings: string[]): void {
  try {
    const mode = statSync(file).mode;
    if (process.platform !== 'win32' && (mode & 0o044) !== 0) {
      warnings.push(`${file} holds a password and is readable by others; run: chmod 600 ${file}`);
    }
  } catch {
    // A file we could not stat was already reported where it was read.
  }
}

/** Every problem at once, worded for a person and listed for --json (`field` is the key path). */
function settingsError(
  where: string,
  problems: readonly ConfigProblem[],
  code: ErrorCode,
): UsageError {
  return new UsageError(
    formatProblems(where, problems),
    code,
    undefined,
    problems.map((p) => ({ file: where, field: p.path, reason: p.message })),
  );
}

export function formatProblems(where: string, problems: readonly ConfigProblem[]): string {
  const lines = problems.map((p) => `  ${p.path}: ${p.message}`);
  const noun = problems.length === 1 ? 'problem' : 'problems';
  return `${where} ${where === 'the settings' ? 'have' : 'has'} ${problems.length} ${noun}:\n${lines.join('\n')}\nNothing was sent.`;
}
