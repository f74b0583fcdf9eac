// The config file's schema: every key a file may set, checked with valibot so all problems surface at once.
import * as v from 'valibot';
import { parseDuration } from './duration.js';

const positiveInt = v.pipe(
  v.number('must be a number'),
  v.integer('must be a whole number'),
  v.minValue(1, 'must be at least 1'),
);
const nonNegativeInt = v.pipe(
  v.number('must be a number'),
  v.integer('must be a whole number'),
  v.minValue(0, 'must not be negative'),
);
/** A whole number written as a JSON number or as digits; the message is the rule, not the type. */
const digits = (pattern: RegExp, message: string) =>
  v.pipe(
    v.union([v.number(), v.string()], message),
    v.check((value) => pattern.test(String(value)), message),
  );
/** Durations may be a number of seconds or a string such as "30s", "500ms", "2m". */
const durationMessage = 'must be a duration such as 30s, 500ms or 2m';
const duration = v.pipe(
  v.union([v.number(), v.string()], durationMessage),
  v.check((value) => (parseDuration(value) ?? 0) > 0, durationMessage),
);

const settingsEntries = {
  endpoint: v.pipe(v.string(), v.url('must be an absolute URL such as https://host/path')),
  username: v.pipe(v.string(), v.maxLength(128)),
  password: v.pipe(v.string(), v.maxLength(128)),
  passwordFile: v.string(),
  passwordEnv: v.pipe(v.string(), v.regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be a variable name')),
  gateway: digits(/^[1-9][0-9]*$/, 'must be a positive whole number such as 99700999'),
  originatorAddress: v.pipe(v.string(), v.minLength(1), v.maxLength(25)),
  price: digits(/^[0-9]+$/, 'must be a whole number of øre, 0 or more'),
  messageType: v.pipe(v.string(), v.length(2, 'must be two characters, e.g. "00"')),
  validationPeriod: v.string(),
  category: v.pipe(v.string(), v.maxLength(32)),
  deliveryReportUrl: v.pipe(v.string(), v.maxLength(2048)),
  customData: v.record(v.string(), v.unknown()),
  serviceCode: v.pipe(v.string(), v.maxLength(128)),
  serviceDescription: v.pipe(v.string(), v.maxLength(512)),
  country: v.pipe(v.string(), v.regex(/^[A-Za-z]{2}$/, 'must be a two-letter country code')),
  batchSize: positiveInt,
  concurrency: positiveInt,
  rate: v.pipe(v.number('must be a number'), v.minValue(0, 'must not be negative')),
  timeout: duration,
  retries: nonNegativeInt,
  stateDir: v.pipe(v.string(), v.minLength(1, 'must be a folder path')),
  campaign: v.pipe(
    v.string(),
    v.regex(
      /^[A-Za-z0-9{}][A-Za-z0-9._{}-]{0,63}$/,
      'must be 1-64 letters, digits, ".", "_" or "-" ({date}, {time} and {name} allowed)',
    ),
  ),
} as const;

// Plain objects, not strictObject: valibot stops at the first unknown key, and every one must be
// reported. Unknown keys are found by unknownKeys() below.
const settingsSchema = v.object(
  Object.fromEntries(
    Object.entries(settingsEntries).map(([key, schema]) => [key, v.optional(schema)]),
  ) as {
    [K in keyof typeof settingsEntries]: v.OptionalSchema<(typeof settingsEntries)[K], undefined>;
  },
);

export const configFileSchema = v.object({
  ...settingsSchema.entries,
  profiles: v.optional(v.record(v.string(), settingsSchema)),
});

export type FileSettings = v.InferOutput<typeof settingsSchema>;
export type ConfigFile = v.InferOutput<typeof configFileSchema>;
export type SettingKey = keyof FileSettings;

/** One problem found in a config file, with the dotted path of the key at fault. */
export interface ConfigProblem {
  path: string;
  message: string;
}

/** Checks a parsed config file, returning every problem rather than the first. */
export function checkConfigFile(
  raw: unknown,
): { ok: true; value: ConfigFile } | { ok: false; problems: ConfigProblem[] } {
  const result = v.safeParse(configFileSchema, raw);
  const problems: ConfigProblem[] = result.success
    ? []
    : result.issues.map((issue) => ({
        path: v.getDotPath(issue) ?? '(root)',
        message: issue.message,
      }));
  problems.push(...unknownKeys(raw));
  problems.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  if (problems.length === 0 && result.success) return { ok: true, value: result.output };
  return { ok: false, problems };
}

const KNOWN = new Set(Object.keys(settingsEntries));

/** Every key the schema does not know, top level and inside each profile (typos are the usual cause). */
function unknownKeys(raw: unknown): ConfigProblem[] {
  if (!isObject(raw)) return [];
  const problems: ConfigProblem[] = [];
  for (const key of Object.keys(raw)) {
    if (!KNOWN.has(key) && key !== 'profiles')
      problems.push({ path: key, message: unknownKeyMessage(key) });
  }
  const profiles = raw.profiles;
  if (isObject(profiles)) {
    for (const [name, profile] of Object.entries(profiles)) {
      if (!isObject(profile)) continue;
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
  const near = [...KNOWN].find((known) => known.toLowerCase() === lower);
  return near ? `unknown key (did you mean "${near}"?)` : 'unknown key';
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
