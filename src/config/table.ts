// Every setting, declared once: its config key, flag, environment variable, help, schema and default.
// Flags and help, the config schema, defaults, env names and `sms-send config` are derived from here.
import * as v from 'valibot';
import {
  checkCategory,
  checkDeliveryReportUrl,
  checkGatewayField,
  checkMessageType,
  checkOriginator,
  checkPrice,
  checkServiceCode,
  checkServiceDescription,
  type Check,
} from '../message/rules.js';
import { checkValidityFormat } from '../message/validity.js';
import { canonicalTimeZone, parseDateTime, parseDays, parseHours } from '../shared/window.js';
import { isPlainObject } from '../shared/plain-object.js';
import { parseDuration } from '../shared/duration.js';
import { maskUrl } from '../shared/url.js';
import type { PricePerSegment } from '../message/cost.js';

/** Where a setting shows in help and in `sms-send config`. */
export type SettingGroup = 'input' | 'gateway' | 'message' | 'cost' | 'sending' | 'state';

export interface Spec<S extends v.GenericSchema> {
  /** The flag as commander takes it, e.g. `--from <sender>`. */
  flag?: string;
  /** The environment variable that sets it. */
  env?: string;
  help: string;
  group: SettingGroup;
  schema: S;
  /** Flag text → the value the schema checks (flags are text; the schema wants numbers). */
  fromFlag?: (text: string) => unknown;
  /** The built-in default, as a config file would write it. */
  default?: v.InferOutput<S>;
  /**
   * Never printed, from any source, valid or not: `sms-send config` shows ***, and every problem
   * with it names the setting and what is wrong, never the value (see `secretSafe` in schema.ts).
   */
  secret?: boolean;
  /**
   * A flag that may be repeated, collected into one value: `true` gathers `--custom k=v` into an
   * object, `'list'` gathers `--suppress FILE` into an array.
   */
  repeatable?: true | 'list';
  /** A flag only `send` takes. */
  sendOnly?: boolean;
  /** The values shell completion offers for the flag (the schema still decides what is valid). */
  choices?: () => readonly string[];
  /** How `sms-send config` shows a text value: a password inside it masked (a proxy's URL). */
  shown?: (text: string) => string;
  /**
   * How the resolved settings (settings.ts) hold it. Unset: under its own key, its merged value
   * as it is or as `normalise` makes it: a plain setting, which needs nothing but this entry.
   * `'ms'`: a duration, held as milliseconds under `<key>Ms`. `'computed'`: not under its own key;
   * settings.ts declares the setting made from it (`defaults`, `sendWindow`, `password`, …).
   */
  resolved?: 'ms' | 'computed';
  /** A plain setting's merged value (undefined when no layer sets it) as every command reads it. */
  normalise?(value: v.InferOutput<S> | undefined): unknown;
}

/** One setting's declaration, whatever its schema. */
export type SettingSpec = Spec<v.GenericSchema>;

/**
 * An entry, its literal kept (whether it has a default, how it is resolved, what it normalises
 * to), so settings.ts can derive the resolved settings' type from the table.
 */
const spec = <S extends v.GenericSchema, const X extends Partial<Spec<S>>>(
  s: Spec<S> & X,
): Spec<S> & X => s;

/** A field rule of message/rules.ts as a schema step, so config, env and flags fail alike. */
const rule = <T extends string | number>(check: Check) =>
  v.rawCheck<T>(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const reason = check(String(dataset.value));
    if (reason) addIssue({ message: reason });
  });
const text = (check: Check) => v.pipe(v.string(), rule<string>(check));
const digits = (check: Check, message: string) =>
  v.pipe(v.union([v.number(), v.string()], message), rule<string | number>(check));
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
const durationMessage = 'must be a duration such as 30s, 500ms or 2m';
const duration = v.pipe(
  v.union([v.number(), v.string()], durationMessage),
  v.check((value) => (parseDuration(value) ?? 0) > 0, durationMessage),
);
/** A parser's reason (a string) as a field rule's: text when refused, else nothing. */
const reasonOf =
  (parse: (text: string) => unknown): Check =>
  (value) => {
    const parsed = parse(value);
    return typeof parsed === 'string' ? parsed : undefined;
  };

/** Digits become a number for the schema to judge; anything else stays text, and is refused. */
const numeric = (value: string): unknown =>
  /^\s*-?\d+(\.\d+)?\s*$/.test(value) ? Number(value) : value;

const PRICE_FORMS =
  'a price such as 0.5, or prices by calling code with a default, e.g. {"47": 0.35, "default": 0.5}';
const CALLING_CODE = /^\+?[1-9][0-9]{0,2}$/;

/** A price per segment's problem, or undefined: a number, or calling code → number with a default. */
export function checkPricePerSegment(value: PricePerSegment): string | undefined {
  if (typeof value === 'number') return value >= 0 ? undefined : 'must not be negative';
  for (const [key, price] of Object.entries(value)) {
    if (key !== 'default' && !CALLING_CODE.test(key)) {
      return `"${key}" is not a calling code (such as 47) or "default"`;
    }
    if (typeof price !== 'number' || !(price >= 0)) {
      return `the price for "${key}" must be a number, 0 or more`;
    }
  }
  return 'default' in value
    ? undefined
    : `needs a "default" price for the calling codes it does not list, e.g. {"47": 0.35, "default": 0.5}`;
}

/** Calling codes as the plan looks them up: `"+47"` is `"47"`. */
function pricesByCode(price: PricePerSegment | undefined): PricePerSegment | undefined {
  if (price === undefined || typeof price === 'number') return price;
  return Object.fromEntries(Object.entries(price).map(([code, p]) => [code.replace(/^\+/, ''), p]));
}

const upperCase = (text: string | undefined): string | undefined => text?.toUpperCase();
const isOn = (on: boolean | undefined): boolean => on === true;

/** `--price-per-segment 0.5` or `--price-per-segment 47=0.35,46=0.4,default=0.5`. */
const priceFromFlag = (text: string): unknown => {
  if (!text.includes('=')) return numeric(text);
  const prices: Record<string, unknown> = {};
  for (const part of text.split(',')) {
    const at = part.indexOf('=');
    if (at <= 0) return text;
    prices[part.slice(0, at).trim()] = numeric(part.slice(at + 1));
  }
  return prices;
};

const pricePerSegment = v.pipe(
  v.custom<PricePerSegment>(
    (value) => typeof value === 'number' || isPlainObject(value),
    `must be ${PRICE_FORMS}`,
  ),
  v.rawCheck<PricePerSegment>(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const reason = checkPricePerSegment(dataset.value);
    if (reason) addIssue({ message: reason });
  }),
);

export const SETTINGS = {
  endpoint: spec({
    flag: '--endpoint <url>',
    env: 'SMS_SEND_ENDPOINT',
    help: 'gateway base URL, e.g. https://smsgw.intele.no/pushsms/rest',
    group: 'gateway',
    schema: v.pipe(v.string(), v.url('must be an absolute URL such as https://host/path')),
    shown: maskUrl,
    // The operation's path is appended to it.
    normalise: (url) => url?.replace(/\/+$/, ''),
  }),
  proxy: spec({
    flag: '--proxy <url>',
    env: 'SMS_SEND_PROXY',
    help: 'HTTP proxy to reach the gateway through, e.g. http://user:pass@proxy:3128 (default: HTTPS_PROXY or HTTP_PROXY, with NO_PROXY)',
    group: 'gateway',
    schema: v.pipe(
      v.string(),
      v.url('must be a URL such as http://proxy.example:3128'),
      v.check((url) => /^https?:\/\//i.test(url), 'must be an http:// or https:// proxy URL'),
    ),
    shown: maskUrl,
    resolved: 'computed',
  }),
  caFile: spec({
    flag: '--ca-file <path>',
    env: 'SMS_SEND_CA_FILE',
    help: "PEM file of CA certificates to trust besides the system's (a private gateway's, a TLS-inspecting proxy's)",
    group: 'gateway',
    schema: v.pipe(v.string(), v.minLength(1, 'must be a file path')),
    resolved: 'computed',
  }),
  username: spec({
    env: 'SMS_SEND_USERNAME',
    help: 'account (customer id) sent as Username',
    group: 'gateway',
    schema: v.pipe(v.string(), v.maxLength(128, 'must be at most 128 characters')),
  }),
  password: spec({
    env: 'SMS_SEND_PASSWORD',
    help: 'the password (prefer passwordFile, passwordEnv or --password-stdin)',
    group: 'gateway',
    // Every message here says what is wrong without the value: valibot's own messages quote it.
    schema: v.pipe(
      v.string('must be text'),
      v.maxLength(128, 'longer than 128 characters'),
      v.check((text) => !/[\r\n]/.test(text), 'contains a line break'),
    ),
    secret: true,
    resolved: 'computed',
  }),
  passwordFile: spec({
    help: 'file holding the password (relative to the config file)',
    group: 'gateway',
    schema: v.string(),
    resolved: 'computed',
  }),
  passwordEnv: spec({
    help: 'environment variable holding the password',
    group: 'gateway',
    schema: v.pipe(v.string(), v.regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be a variable name')),
    resolved: 'computed',
  }),
  gateway: spec({
    flag: '--gateway <number>',
    help: 'Gateway number',
    group: 'message',
    schema: digits(checkGatewayField, 'must be a positive whole number such as 99700999'),
    default: 99700999,
    resolved: 'computed',
  }),
  originatorAddress: spec({
    flag: '--from <sender>',
    help: 'OriginatorAddress: up to 11 letters/digits, or up to 25 digits',
    group: 'message',
    schema: text(checkOriginator),
    resolved: 'computed',
  }),
  price: spec({
    flag: '--price <øre>',
    help: 'Price billed to the recipient, in øre (premium gateways only)',
    group: 'message',
    schema: digits(checkPrice, 'must be a whole number of øre, 0 or more'),
    default: 0,
    resolved: 'computed',
  }),
  messageType: spec({
    flag: '--message-type <type>',
    help: 'MessageType ("00" text, "11" long text, "10" binary)',
    group: 'message',
    schema: text(checkMessageType),
    choices: () => ['00', '11', '10'],
    resolved: 'computed',
  }),
  validationPeriod: spec({
    flag: '--validity <period>',
    help: 'ValidationPeriod: yyyymmddhhmmss or a duration such as 2h',
    group: 'message',
    schema: text(checkValidityFormat),
    resolved: 'computed',
  }),
  category: spec({
    flag: '--category <name>',
    help: 'Category on the bill',
    group: 'message',
    schema: text(checkCategory),
    resolved: 'computed',
  }),
  deliveryReportUrl: spec({
    flag: '--dlr-url <url>',
    help: 'DeliveryReportUrl, with [$MSGID] [$STATUS] … placeholders',
    group: 'message',
    schema: text(checkDeliveryReportUrl),
    resolved: 'computed',
  }),
  customData: spec({
    flag: '--custom <key=value>',
    help: 'CustomData entry (repeatable)',
    group: 'message',
    schema: v.record(v.string(), v.unknown()),
    repeatable: true,
    resolved: 'computed',
  }),
  serviceCode: spec({
    flag: '--service-code <code>',
    help: 'ServiceCode (premium)',
    group: 'message',
    schema: text(checkServiceCode),
    resolved: 'computed',
  }),
  serviceDescription: spec({
    flag: '--service-description <text>',
    help: 'ServiceDescription (premium)',
    group: 'message',
    schema: text(checkServiceDescription),
    resolved: 'computed',
  }),
  country: spec({
    flag: '--country <CC>',
    help: 'country for national numbers, e.g. NO',
    group: 'message',
    schema: v.pipe(v.string(), v.regex(/^[A-Za-z]{2}$/, 'must be a two-letter country code')),
    normalise: upperCase,
  }),
  strict: spec({
    flag: '--strict',
    sendOnly: true,
    help: 'refuse (exit 2) rather than warn for every {word} in single braces, not only those close to a column',
    group: 'input',
    schema: v.boolean('must be true or false'),
    normalise: isOn,
  }),
  suppress: spec({
    flag: '--suppress <file>',
    sendOnly: true,
    help: 'skip recipients listed in this file: one number a line, or a CSV with a phone column (repeatable)',
    group: 'input',
    schema: v.array(
      v.pipe(v.string(), v.minLength(1, 'must be a file path')),
      'must be a list of file paths, e.g. ["optouts.csv"]',
    ),
    repeatable: 'list',
    resolved: 'computed',
  }),
  gsmNormalize: spec({
    flag: '--gsm-normalize',
    help: 'replace typographic quotes, dashes, spaces and the like with GSM-7 look-alikes, so texts stay GSM-7',
    group: 'cost',
    schema: v.boolean('must be true or false'),
    normalise: isOn,
  }),
  maxSegments: spec({
    flag: '--max-segments <n>',
    help: 'a record whose text needs more segments than this is invalid',
    group: 'cost',
    schema: positiveInt,
    fromFlag: numeric,
  }),
  pricePerSegment: spec({
    flag: '--price-per-segment <price>',
    help: 'what the gateway bills you per segment, for the cost estimate: 0.5, or by calling code: 47=0.35,default=0.5',
    group: 'cost',
    schema: pricePerSegment,
    fromFlag: priceFromFlag,
    normalise: pricesByCode,
  }),
  currency: spec({
    flag: '--currency <code>',
    help: 'currency of the prices and --max-cost, e.g. NOK',
    group: 'cost',
    schema: v.pipe(
      v.string(),
      v.regex(/^[A-Za-z]{3}$/, 'must be a three-letter currency code such as NOK'),
    ),
    normalise: upperCase,
  }),
  maxCost: spec({
    flag: '--max-cost <amount>',
    help: 'refuse to send a campaign estimated to cost more than this (needs a price per segment)',
    group: 'cost',
    schema: v.pipe(v.number('must be a number'), v.minValue(0, 'must not be negative')),
    fromFlag: numeric,
  }),
  batchSize: spec({
    flag: '--batch-size <n>',
    help: 'messages per request',
    group: 'sending',
    schema: positiveInt,
    fromFlag: numeric,
    default: 100,
  }),
  concurrency: spec({
    flag: '--concurrency <n>',
    help: 'requests in flight',
    group: 'sending',
    schema: positiveInt,
    fromFlag: numeric,
    default: 4,
  }),
  rate: spec({
    flag: '--rate <n>',
    help: 'messages per second (0 or unset: unlimited)',
    group: 'sending',
    schema: v.pipe(v.number('must be a number'), v.minValue(0, 'must not be negative')),
    fromFlag: numeric,
    // 0 is no limit, as unset is.
    normalise: (rate) => (rate ? rate : undefined),
  }),
  timeout: spec({
    flag: '--timeout <duration>',
    help: "how long to wait for the gateway's answer to one request",
    group: 'gateway',
    schema: duration,
    default: '30s',
    resolved: 'ms',
  }),
  outageGrace: spec({
    flag: '--outage-grace <duration>',
    help: 'how long to wait for a gateway that stopped answering before stopping (exit 3); 0 never waits',
    group: 'sending',
    schema: v.pipe(
      v.union([v.number(), v.string()], durationMessage),
      v.check((value) => parseDuration(value) !== undefined, durationMessage),
    ),
    default: '60s',
    resolved: 'ms',
  }),
  retries: spec({
    flag: '--retries <n>',
    help: 'retries of a request the gateway surely did not process',
    group: 'sending',
    schema: nonNegativeInt,
    fromFlag: numeric,
    default: 3,
  }),
  window: spec({
    flag: '--window <HH:MM-HH:MM>',
    help: 'send only between these times of day, e.g. 09:00-21:00 (22:00-06:00 crosses midnight)',
    group: 'sending',
    schema: text(reasonOf(parseHours)),
    resolved: 'computed',
  }),
  days: spec({
    flag: '--days <days>',
    help: 'send only on these days, e.g. mon-fri, mon,wed,fri or sat-sun',
    group: 'sending',
    schema: text(reasonOf(parseDays)),
    resolved: 'computed',
  }),
  timezone: spec({
    flag: '--tz <zone>',
    help: "time zone of --window, --days and --not-before, e.g. Europe/Oslo (default: the machine's)",
    group: 'sending',
    schema: text((zone) =>
      canonicalTimeZone(zone) === undefined
        ? 'must be an IANA time zone such as Europe/Oslo'
        : undefined,
    ),
    choices: () => Intl.supportedValuesOf('timeZone'),
    resolved: 'computed',
  }),
  notBefore: spec({
    flag: '--not-before <date-time>',
    help: 'send nothing before this time, e.g. 2026-12-01T09:00 (in --tz unless it has an offset)',
    group: 'sending',
    schema: text((value) =>
      parseDateTime(value, 'UTC') === undefined
        ? 'must be a date and time such as 2026-12-01T09:00 (or with an offset: 2026-12-01T09:00+01:00)'
        : undefined,
    ),
    resolved: 'computed',
  }),
  stateDir: spec({
    flag: '--state-dir <path>',
    env: 'SMS_SEND_STATE_DIR',
    help: 'where campaign state (journal, lock, manifest) lives; default $XDG_STATE_HOME/sms-send',
    group: 'state',
    schema: v.pipe(v.string(), v.minLength(1, 'must be a folder path')),
    resolved: 'computed',
  }),
  stateUrl: spec({
    flag: '--state-url <url>',
    env: 'SMS_SEND_STATE_URL',
    help: 'keep campaign state in PostgreSQL, e.g. postgres://sms@db/sms (PGHOST, PGUSER, PGPASSWORD, PGDATABASE fill what it leaves out): every host that sends sees it',
    group: 'state',
    schema: v.pipe(
      v.string(),
      v.check(
        (url) => /^postgres(ql)?:\/\//i.test(url) && URL.canParse(url),
        'must be a postgres:// URL such as postgres://sms@db.example/sms',
      ),
    ),
    shown: maskUrl,
  }),
  lease: spec({
    flag: '--lease <duration>',
    env: 'SMS_SEND_LEASE',
    help: 'with --state-url: how long a run that stopped renewing its hold on a campaign keeps it from other hosts',
    group: 'state',
    schema: v.pipe(
      v.union([v.number(), v.string()], durationMessage),
      v.check(
        (value) => (parseDuration(value) ?? 0) >= 1000,
        'must be a duration of 1s or more, e.g. 30s',
      ),
    ),
    default: '30s',
    resolved: 'ms',
  }),
  campaign: spec({
    flag: '--campaign <name>',
    sendOnly: true,
    help: 'campaign name ({date}, {time}, {name} allowed) instead of one derived from the content',
    group: 'state',
    schema: v.pipe(
      v.string(),
      v.regex(
        /^[A-Za-z0-9{}][A-Za-z0-9._{}-]{0,63}$/,
        'must be 1-64 letters, digits, ".", "_" or "-" ({date}, {time} and {name} allowed)',
      ),
    ),
  }),
};

export type SettingKey = keyof typeof SETTINGS;
export const SETTING_KEYS = Object.keys(SETTINGS) as SettingKey[];

/** The schema of one layer of settings (a config file's top level, a profile, env, flags). */
export const settingsSchema = v.object(
  Object.fromEntries(SETTING_KEYS.map((key) => [key, v.optional(SETTINGS[key].schema)])) as {
    [K in SettingKey]: v.OptionalSchema<(typeof SETTINGS)[K]['schema'], undefined>;
  },
);

export type FileSettings = v.InferOutput<typeof settingsSchema>;

export const BUILT_IN_DEFAULTS: FileSettings = Object.fromEntries(
  SETTING_KEYS.filter((key) => SETTINGS[key].default !== undefined).map((key) => [
    key,
    SETTINGS[key].default,
  ]),
);

/** commander's name for a flag's value: `--dlr-url <url>` → `dlrUrl`. */
export function flagAttribute(flag: string): string {
  const long = /--([\w-]+)/.exec(flag)![1]!;
  return long.replace(/-(\w)/g, (_, c: string) => c.toUpperCase());
}

/** `--dlr-url` for a key with a flag, else undefined. */
export function flagName(key: SettingKey): string | undefined {
  const flag: string | undefined = SETTINGS[key].flag;
  return flag === undefined ? undefined : /--[\w-]+/.exec(flag)![0];
}
