// The config file's schema, derived from the settings table, checked with valibot so every problem surfaces at once.
import * as v from 'valibot';
import { isPlainObject } from '../shared/plain-object.js';
import {
  SETTING_KEYS,
  SETTINGS,
  settingsSchema,
  type FileSettings,
  type SettingKey,
} from './table.js';

export type { FileSettings, SettingKey } from './table.js';

export const configFileSchema = v.object({
  ...settingsSchema.entries,
  profiles: v.optional(v.record(v.string(), settingsSchema)),
});

export type ConfigFile = v.InferOutput<typeof configFileSchema>;

/** One problem found in a layer of settings, with the key path (or flag, or variable) at fault. */
export interface ConfigProblem {
  path: string;
  message: string;
}

/** Checks a parsed config file, returning every problem rather than the first. */
export function checkConfigFile(
  raw: unknown,
): { ok: true; value: ConfigFile } | { ok: false; problems: ConfigProblem[] } {
  const result = v.safeParse(configFileSchema, raw);
  const problems: ConfigProblem[] = result.success ? [] : issuesOf(result.issues);
  problems.push(...unknownKeys(raw));
  problems.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  if (problems.length === 0 && result.success) return { ok: true, value: result.output };
  return { ok: false, problems };
}

/**
 * Checks the values of one layer (environment or flags) against the same schema as a file, and
 * names each problem the way the user set it (`--batch-size`, `SMS_SEND_ENDPOINT`).
 */
export function checkLayer(
  values: Record<string, unknown>,
  nameOf: (key: string) => string,
): { ok: true; value: FileSettings } | { ok: false; problems: ConfigProblem[] } {
  const result = v.safeParse(settingsSchema, values);
  if (result.success) return { ok: true, value: result.output };
  return {
    ok: false,
    problems: issuesOf(result.issues).map((p) => {
      const key = p.path.split('.')[0]!;
      const value = values[key];
      // The value as typed, so a typo is visible in the message itself; never a secret's, and a
      // URL's password masked (a mistyped URL holds one as often as a valid one).
      const spec = SETTINGS[key as SettingKey] as { shown?: (text: string) => string } | undefined;
      const text = typeof value === 'string' && spec?.shown ? spec.shown(value) : value;
      const shown =
        !isSecretPath(key) && (typeof text === 'string' || typeof text === 'number')
          ? ` ${JSON.stringify(text)}`
          : '';
      return { ...p, path: `${nameOf(key)}${shown}` };
    }),
  };
}

/**
 * A secret setting's value as read from another source (a password file, a variable named by
 * passwordEnv, standard input), checked by the same schema: what is wrong, never the value.
 */
export function checkSecret(key: SettingKey, value: string): string | undefined {
  const result = v.safeParse(SETTINGS[key].schema, value);
  return result.success ? undefined : secretSafe(result.issues[0].message, value);
}

function issuesOf(issues: readonly v.BaseIssue<unknown>[]): ConfigProblem[] {
  return issues.map((issue) => {
    const path = v.getDotPath(issue) ?? '(root)';
    const message = isSecretPath(path) ? secretSafe(issue.message, issue.input) : issue.message;
    return { path, message };
  });
}

/** `password`, `profiles.ci.password`, `password.0`: the key path of a secret setting's value. */
function isSecretPath(path: string): boolean {
  const key = /^(?:profiles\.[^.]+\.)?([^.]+)/.exec(path)?.[1];
  const spec: { secret?: boolean } | undefined = SETTINGS[key as keyof typeof SETTINGS];
  return spec?.secret === true;
}

/**
 * A problem's wording for a secret setting. The table's messages never quote the value; this is
 * the net under them (a default message of the schema library quotes what it received): a
 * message holding the value, or any eight characters of it, says only that the value is invalid.
 */
export function secretSafe(message: string, value: unknown): string {
  if (typeof value !== 'string' && typeof value !== 'number') return message;
  const text = String(value);
  const span = Math.min(8, text.length);
  for (let at = 0; span > 0 && at + span <= text.length; at++) {
    const piece = text.slice(at, at + span);
    if (message.includes(piece) || message.includes(JSON.stringify(piece).slice(1, -1))) {
      return 'is not valid (the value is not shown)';
    }
  }
  return message;
}

const KNOWN = new Set<string>(SETTING_KEYS);

/** Every key the schema does not know, top level and inside each profile (typos are the usual cause). */
function unknownKeys(raw: unknown): ConfigProblem[] {
  if (!isPlainObject(raw)) return [];
  const problems: ConfigProblem[] = [];
  for (const key of Object.keys(raw)) {
    if (!KNOWN.has(key) && key !== 'profiles')
      problems.push({ path: key, message: unknownKeyMessage(key) });
  }
  const profiles = raw.profiles;
  if (isPlainObject(profiles)) {
    for (const [name, profile] of Object.entries(profiles)) {
      if (!isPlainObject(profile)) continue;
      for (const key of Object.keys(profile)) {
        if (!KNOWN.has(key)) {
          problems.push({ path: `profiles.${name}.${key}`, message: unknownKeyMessage(key) });
        }
      }
    }
  }
  return problems;
}

function unknownKeyMessage(key: string): string {
  const lower = key.toLowerCase();
  // A key that differs in case, or by a slip of one or two letters ("concurrancy").
  const near =
    [...KNOWN].find((known) => known.toLowerCase() === lower) ??
    [...KNOWN].find((known) => distance(known.toLowerCase(), lower) <= 2);
  return near ? `unknown key (did you mean "${near}"?)` : 'unknown key';
}

/** Levenshtein distance, for short keys only. */
function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(
        previous[j]! + 1,
        current[j - 1]! + 1,
        previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
    previous = current;
  }
  return previous[b.length]!;
}
