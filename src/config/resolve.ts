// The config pipeline: load the file, check it, pick the profile, merge the layers, normalise.
import { readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, resolve as resolvePath } from 'node:path';
import { UsageError } from '../errors.js';
import { parseDuration } from './duration.js';
import { ENV, envLayer } from './env.js';
import { loadConfigFile } from './load.js';
import { mergeLayers, type Layer } from './merge.js';
import { checkConfigFile, type ConfigProblem, type FileSettings } from './schema.js';
import { BUILT_IN_DEFAULTS, type Settings } from './settings.js';

export interface ResolveInput {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Only the flags the user actually passed, already named like config keys. */
  flags: FileSettings;
  configPath?: string;
  profile?: string;
  /** A password read from stdin by `--password-stdin`. */
  stdinPassword?: string;
}

export async function resolveSettings(input: ResolveInput): Promise<Settings> {
  const loaded = await loadConfigFile(input.cwd, input.configPath);
  const layers: Layer[] = [{ source: 'default', values: BUILT_IN_DEFAULTS }];
  const problems: ConfigProblem[] = [];
  const warnings: string[] = [];
  const profileName = input.profile ?? input.env[ENV.profile];

  if (loaded) {
    const checked = checkConfigFile(loaded.raw);
    if (!checked.ok) {
      throw new UsageError(formatProblems(loaded.filepath, checked.problems), 'config');
    }
    const { profiles, ...top } = checked.value;
    layers.push({ source: loaded.filepath, values: top });
    if (profileName) {
      const profile = profiles?.[profileName];
      if (!profile) {
        const known = Object.keys(profiles ?? {});
        throw new UsageError(
          `profile "${profileName}" is not defined in ${loaded.filepath}` +
            (known.length ? ` (defined: ${known.join(', ')})` : ' (it defines no profiles)'),
          'config',
        );
      }
      layers.push({ source: `${loaded.filepath}#profiles.${profileName}`, values: profile });
    }
    const holdsPassword =
      top.password !== undefined ||
      Object.values(profiles ?? {}).some((p) => p.password !== undefined);
    if (holdsPassword) warnIfReadable(loaded.filepath, warnings);
  } else if (profileName) {
    throw new UsageError(
      `profile "${profileName}" requested but no config file was found`,
      'config',
    );
  }

  layers.push({ source: 'env', values: envLayer(input.env) });
  layers.push({ source: 'flag', values: input.flags });
  const merged = mergeLayers(layers);
  const values = merged.values;

  const password = resolvePassword(values, input, merged.sources, problems, warnings);
  const timeoutMs = parseDuration(values.timeout ?? '30s');
  if (timeoutMs === undefined || timeoutMs <= 0) {
    problems.push({ path: 'timeout', message: 'must be a duration such as 30s, 500ms or 2m' });
  }
  if (problems.length) {
    throw new UsageError(formatProblems('settings', problems), 'config');
  }

  return {
    endpoint: values.endpoint?.replace(/\/+$/, ''),
    username: values.username,
    password,
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
    country: values.country?.toUpperCase(),
    batchSize: values.batchSize ?? 100,
    concurrency: values.concurrency ?? 4,
    rate: values.rate ? values.rate : undefined,
    timeoutMs: timeoutMs ?? 30_000,
    retries: values.retries ?? 3,
    stateDir: resolvePath(
      baseFor(merged.sources.stateDir, input.cwd),
      expandHome(values.stateDir ?? defaultStateDir(input.env)),
    ),
    campaign: values.campaign,
    sources: merged.sources,
    configFile: loaded?.filepath,
    profile: profileName,
    warnings,
  };
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

function expandHome(path: string): string {
  return path.replace(/^~(?=$|\/)/, homedir());
}

function resolvePassword(
  values: FileSettings,
  input: ResolveInput,
  sources: Settings['sources'],
  problems: ConfigProblem[],
  warnings: string[],
): string | undefined {
  if (input.stdinPassword !== undefined) {
    sources.password = 'stdin';
    return input.stdinPassword;
  }
  // SMS_SEND_PASSWORD arrives through the env layer as `password`; it outranks file-based sources.
  if (sources.password === 'env') return values.password;
  if (values.passwordEnv) {
    const fromEnv = input.env[values.passwordEnv];
    if (fromEnv === undefined) {
      problems.push({
        path: 'passwordEnv',
        message: `environment variable ${values.passwordEnv} is not set`,
      });
      return undefined;
    }
    sources.password = `env ${values.passwordEnv}`;
    return fromEnv;
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
      return secret;
    } catch {
      problems.push({ path: 'passwordFile', message: `cannot read ${file}` });
      return undefined;
    }
  }
  return values.password;
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

export function formatProblems(where: string, problems: readonly ConfigProblem[]): string {
  const lines = problems.map((p) => `  ${p.path}: ${p.message}`);
  const noun = problems.length === 1 ? 'problem' : 'problems';
  return `${where} has ${problems.length} ${noun}:\n${lines.join('\n')}`;
}
