// The config file's schema: every key a file may set, checked with valibot so all problems surface at once.
import * as v from 'valibot';

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
/** Durations may be a number of seconds or a string such as "30s", "500ms", "2m". */
const duration = v.union([v.pipe(v.number(), v.minValue(0)), v.string()]);

const settingsEntries = {
  endpoint: v.pipe(v.string(), v.url('must be an absolute URL such as https://host/path')),
  username: v.pipe(v.string(), v.maxLength(128)),
  password: v.pipe(v.string(), v.maxLength(128)),
  passwordFile: v.string(),
  passwordEnv: v.pipe(v.string(), v.regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be a variable name')),
  gateway: v.union(
    [positiveInt, v.pipe(v.string(), v.regex(/^[1-9][0-9]*$/))],
    'must be a positive whole number such as 99700999',
  ),
  originatorAddress: v.pipe(v.string(), v.minLength(1), v.maxLength(25)),
  price: v.union(
    [nonNegativeInt, v.pipe(v.string(), v.regex(/^[0-9]+$/))],
    'must be a whole number of øre, 0 or more',
  ),
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
} as const;

const settingsSchema = v.strictObject(
  Object.fromEntries(
    Object.entries(settingsEntries).map(([key, schema]) => [key, v.optional(schema)]),
  ) as {
    [K in keyof typeof settingsEntries]: v.OptionalSchema<(typeof settingsEntries)[K], undefined>;
  },
);

export const configFileSchema = v.strictObject({
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
  if (result.success) return { ok: true, value: result.output };
  const problems = result.issues.map((issue) => ({
    path: v.getDotPath(issue) ?? '(root)',
    message: describeIssue(issue),
  }));
  return { ok: false, problems };
}

function describeIssue(issue: v.BaseIssue<unknown>): string {
  if (issue.kind === 'schema' && issue.type === 'strict_object' && issue.input !== undefined) {
    return 'unknown key';
  }
  return issue.message;
}
