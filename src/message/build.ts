// One input record → one RestSmsMessageReq, or the list of reasons it cannot be sent.
import { LIMITS, type RestSmsMessageReq } from '../gateway/types.js';
import type { FieldValue, InputRecord } from '../input/types.js';
import {
  hasProofParam,
  proofFor,
  proofLength,
  withProof,
  type DlrSigner,
} from '../shared/dlr-proof.js';
import { isPlainObject } from '../shared/plain-object.js';
import type { ColumnPlan, MessageField } from './columns.js';
import { analyzeText, type TextInfo } from './encoding.js';
import { normalizeForGsm } from './gsm-normalize.js';
import { checkMessageId, generateMessageId } from './message-id.js';
import { braceProblem, singleBraced } from './placeholders.js';
import { normalizeMsisdn } from './msisdn.js';
import { checkNested, MAX_CUSTOM_DATA, MAX_NESTED_VALUE } from './nesting.js';
import {
  checkCategory,
  checkDeliveryReportUrl,
  checkGatewayField,
  checkMessageType,
  checkOriginator,
  checkPremium,
  checkPrice,
  checkServiceCode,
  checkServiceDescription,
  checkUserData,
  checkUserDataHeader,
  type Check,
} from './rules.js';
import { nearestName } from '../shared/nearest.js';
import { fillOnce, type Template } from './template.js';
import { normalizeValidity } from './validity.js';

/** Message fields applied to every record unless the record sets its own. */
export interface MessageDefaults {
  gateway: number;
  originatorAddress?: string;
  price: number;
  messageType?: string;
  validationPeriod?: string;
  category?: string;
  deliveryReportUrl?: string;
  customData: Record<string, unknown>;
  serviceCode?: string;
  serviceDescription?: string;
}

/** One reason a record cannot be sent, naming the field (or column) at fault. */
export interface RecordProblem {
  field: string;
  reason: string;
}

/** What --gsm-normalize did to a text: characters replaced from its table, segments saved. */
export interface Normalization {
  replaced: number;
  segmentsSaved: number;
}

export type Built =
  | {
      ok: true;
      message: RestSmsMessageReq;
      to: string;
      /** The text as it is sent (normalised, with --gsm-normalize). */
      text: TextInfo;
      /** The column the text came from; absent when it is the --text template's. */
      textColumn?: string;
      /** Present when --gsm-normalize changed the text. */
      normalized?: Normalization;
      /** A word in single braces the text column's text is sent with as written (a warning). */
      braced?: string;
    }
  | { ok: false; problems: RecordProblem[]; to: string; messageId: string; text: TextInfo };

/**
 * The settings a message is built with: one view, read in place from the record's build down, and
 * plain data, as it crosses to the validation's worker threads. A setting of how a message is
 * built is declared in the settings table and read here, nowhere between.
 */
export interface MessageSettings {
  defaults: MessageDefaults;
  country?: string;
  /** --gsm-normalize: replace look-alikes outside GSM-7 from the table in gsm-normalize.ts. */
  gsmNormalize?: boolean;
  /** --max-segments: a text that needs more is invalid. */
  maxSegments?: number;
}

export interface BuildContext {
  settings: MessageSettings;
  template?: Template;
  campaignKey: string;
  now: Date;
  /** Adds the campaign's proof to each DeliveryReportUrl (shared/dlr-proof.ts). */
  dlrSigner?: DlrSigner;
  /** --strict: a word in single braces in a text column's text makes the record invalid. */
  strict?: boolean;
}

/** Message-field values as strings, from defaults then the record's own columns. */
type Values = Partial<Record<Exclude<MessageField, 'CustomData'>, string>>;

export function buildMessage(record: InputRecord, plan: ColumnPlan, ctx: BuildContext): Built {
  const problems: RecordProblem[] = [];
  const fields = withinLimits(record.fields, problems);
  const rawTo = plan.to !== undefined ? asText(fields[plan.to]) : '';
  // The defaults are copied only when the record's own columns may change them (less garbage).
  const { settings } = ctx;
  const defaults = defaultValues(settings.defaults);
  const values = plan.fields.length > 0 ? { ...defaults } : defaults;
  const baseCustom = settings.defaults.customData;
  const customData = applyColumns(fields, plan, values, baseCustom, problems);

  const messageId = values.MessageId ?? generateMessageId(ctx.campaignKey, record.row);
  const to = normalizeMsisdn(rawTo, settings.country);
  if (plan.to === undefined) problems.push({ field: 'to', reason: 'no recipient column' });
  else if (!to.ok) problems.push({ field: plan.to, reason: `"${rawTo}" ${to.reason}` });

  const braces: { first?: string } = {};
  let text = textOf(fields, plan, ctx, problems, braces);
  let info = analyzeText(text);
  let normalized: Normalization | undefined;
  // Here, after the template is filled and before any check, so what is checked, counted and
  // sent are the same bytes.
  if (settings.gsmNormalize) {
    const result = normalizeForGsm(text, info);
    if (result.replaced > 0) {
      text = result.text;
      info = result.info;
      normalized = { replaced: result.replaced, segmentsSaved: result.segmentsSaved };
    }
  }
  // "00" is a single message: the limit (docs/gateway.md#fields-and-their-limits) is 160 UTF-16 units (as the gateway's .NET
  // strings count; an emoji is two), but 81 euro signs or 71 Cyrillic letters already need two
  // segments, so our own segment count decides too. An explicit MessageType always wins.
  const messageType = values.MessageType ?? (text.length > 160 || info.segments > 1 ? '11' : '00');

  const textField = plan.text ?? 'text';
  const textProblem = checkUserData(text, messageType, info);
  if (textProblem) problems.push({ field: textField, reason: textProblem });
  if (settings.maxSegments !== undefined && info.segments > settings.maxSegments) {
    problems.push({
      field: textField,
      reason: `needs ${info.segments} segments, more than --max-segments ${settings.maxSegments}`,
    });
  }

  checkFields(values, problems);
  const reportUrl = signedReportUrl(values.DeliveryReportUrl, messageId, ctx.dlrSigner, problems);

  const validity = validityOf(values.ValidationPeriod, ctx.now, problems);
  const gateway = Number(values.Gateway);
  const price = Number(values.Price ?? 0);
  if (!problems.some((p) => p.field === 'Gateway' || p.field === 'Price')) {
    const premium = checkPremium(price, gateway);
    if (premium) problems.push({ field: 'Price', reason: premium });
  }

  const msisdn = to.ok ? to.msisdn : rawTo;
  if (problems.length > 0 || !to.ok) {
    return { ok: false, problems, to: msisdn, messageId, text: info };
  }

  // The URL as sent carries the proof; `values` may be the shared defaults, so it stays as given.
  const sent =
    reportUrl === values.DeliveryReportUrl ? values : { ...values, DeliveryReportUrl: reportUrl };
  const message = messageOf(
    sent,
    gateway,
    to.msisdn,
    price,
    messageType,
    messageId,
    text,
    validity,
    customData,
  );
  const built: Extract<Built, { ok: true }> = { ok: true, message, to: to.msisdn, text: info };
  if (!ctx.template && plan.text !== undefined) built.textColumn = plan.text;
  if (normalized) built.normalized = normalized;
  if (braces.first !== undefined) built.braced = braces.first;
  return built;
}

/**
 * The record's message-field and CustomData columns over the defaults: `values` takes the fields;
 * answers the CustomData (undefined when there is none). Problems are added to `problems`.
 */
function applyColumns(
  fields: InputRecord['fields'],
  plan: ColumnPlan,
  values: Values,
  baseCustom: Record<string, unknown>,
  problems: RecordProblem[],
): Record<string, unknown> | undefined {
  let customData = hasKeys(baseCustom) ? { ...baseCustom } : undefined;
  for (const [column, field] of plan.fields) {
    const value = fields[column];
    if (value === undefined || value === null || value === '') continue;
    if (field === 'CustomData') {
      const parsed = parseCustomData(value);
      if (typeof parsed === 'string') problems.push({ field: column, reason: parsed });
      else customData = Object.assign(customData ?? { ...baseCustom }, parsed);
    } else {
      values[field] = asText(value);
    }
  }
  for (const [column, key] of plan.custom) {
    const value = fields[column];
    if (value !== undefined && value !== null && value !== '') {
      customData ??= { ...baseCustom };
      customData[key] = value;
    }
  }

  if (customData !== undefined && !hasKeys(customData)) customData = undefined;
  if (customData !== undefined) {
    const tooBig = checkNested(customData, MAX_CUSTOM_DATA);
    if (tooBig) problems.push({ field: 'CustomData', reason: tooBig });
  }
  return customData;
}

/** The text to send: the --text template or the text column, its placeholders filled. */
function textOf(
  fields: InputRecord['fields'],
  plan: ColumnPlan,
  ctx: BuildContext,
  problems: RecordProblem[],
  braces: { first?: string },
): string {
  const { template } = ctx;
  if (template) {
    for (const name of template.placeholders) {
      if (lookup(fields, name) === undefined) problems.push(noField(name, fields));
    }
    return template.fill((name) => lookup(fields, name));
  }
  const text = plan.text !== undefined ? asText(fields[plan.text]) : '';
  // A text column may itself hold {{column}} placeholders and \{ escapes: each row is then its
  // own template, its words in single braces judged as the --text template's are.
  if (!text.includes('{')) return text;
  for (const name of singleBraced(text)) {
    const found = braceProblem(name, Object.keys(fields), 'its recipient');
    const field = plan.text ?? 'text';
    if (found.refuse) problems.push({ field, reason: found.message });
    else if (ctx.strict) problems.push({ field, reason: `${found.message} (--strict)` });
    else braces.first ??= name;
  }
  const filled = fillOnce(text, (name) => lookup(fields, name));
  for (const name of filled.missing) problems.push(noField(name, fields));
  return filled.text;
}

/** A placeholder the record has no field for, with the field it is closest to (a typo). */
function noField(name: string, fields: InputRecord['fields']): RecordProblem {
  const near = nearestName(name, Object.keys(fields));
  const hint = near === undefined || near === name ? '' : `: did you mean {{${near}}}?`;
  return { field: `{{${name}}}`, reason: `the record has no field "${name}"${hint}` };
}

/** The message fields' own rules, each problem named by its field. */
function checkFields(values: Values, problems: RecordProblem[]): void {
  check(problems, 'Gateway', values.Gateway, checkGatewayField);
  check(problems, 'Price', values.Price, checkPrice);
  check(problems, 'OriginatorAddress', values.OriginatorAddress, checkOriginator);
  check(problems, 'MessageType', values.MessageType, checkMessageType);
  check(problems, 'MessageId', values.MessageId, checkMessageId);
  check(problems, 'UserDataHeader', values.UserDataHeader, checkUserDataHeader);
  check(problems, 'Category', values.Category, checkCategory);
  check(problems, 'DeliveryReportUrl', values.DeliveryReportUrl, checkDeliveryReportUrl);
  check(problems, 'ServiceCode', values.ServiceCode, checkServiceCode);
  check(problems, 'ServiceDescription', values.ServiceDescription, checkServiceDescription);
}

/** ValidationPeriod as sent: absolute, or a duration counted from `now`. */
function validityOf(
  period: string | undefined,
  now: Date,
  problems: RecordProblem[],
): string | undefined {
  if (period === undefined) return undefined;
  const result = normalizeValidity(period, now);
  if (result.ok) return result.value;
  problems.push({ field: 'ValidationPeriod', reason: result.reason });
  return undefined;
}

/** The RestSmsMessageReq of a record that passed every check. */
function messageOf(
  values: Values,
  gateway: number,
  msisdn: string,
  price: number,
  messageType: string,
  messageId: string,
  text: string,
  validity: string | undefined,
  customData: Record<string, unknown> | undefined,
): RestSmsMessageReq {
  // Field order follows the RestSmsMessageReq table (docs/gateway.md#fields-and-their-limits) so
  // requests read naturally in logs and tests.
  const message: RestSmsMessageReq = {
    Gateway: gateway,
    DestinationAddress: Number(msisdn),
    Price: price,
    MessageType: messageType,
    MessageId: messageId,
    UserData: text,
  };
  if (values.OriginatorAddress !== undefined) message.OriginatorAddress = values.OriginatorAddress;
  if (validity !== undefined) message.ValidationPeriod = validity;
  if (values.UserDataHeader !== undefined) message.UserDataHeader = values.UserDataHeader;
  if (values.Category !== undefined) message.Category = values.Category;
  if (customData !== undefined) message.CustomData = customData;
  if (values.DeliveryReportUrl !== undefined) message.DeliveryReportUrl = values.DeliveryReportUrl;
  if (values.ServiceCode !== undefined) message.ServiceCode = values.ServiceCode;
  if (values.ServiceDescription !== undefined)
    message.ServiceDescription = values.ServiceDescription;
  return message;
}

/**
 * The DeliveryReportUrl as sent: the URL as given with the message's proof added, so the
 * receiver believes only reports the gateway makes from it. The length limit counts the proof.
 */
function signedReportUrl(
  url: string | undefined,
  messageId: string,
  signer: DlrSigner | undefined,
  problems: RecordProblem[],
): string | undefined {
  if (url === undefined || signer === undefined) return url;
  if (hasProofParam(url)) {
    problems.push({
      field: 'DeliveryReportUrl',
      reason: 'has a smsig parameter, which sms-send adds itself (the proof of its reports)',
    });
    return url;
  }
  const added = proofLength(signer.campaign);
  if (url.length <= LIMITS.DeliveryReportUrl && url.length + added > LIMITS.DeliveryReportUrl) {
    problems.push({
      field: 'DeliveryReportUrl',
      reason: `is ${url.length} characters, ${url.length + added} with the proof sms-send adds (at most ${LIMITS.DeliveryReportUrl})`,
    });
    return url;
  }
  return withProof(url, proofFor(signer, messageId));
}

/**
 * Reports every nested value over the depth or size limit, and leaves it out of the fields the
 * rest of the build sees: a value 5,000 levels deep would overflow the stack in JSON.stringify.
 * Checked here, in the validation pass, so a dry run refuses what a send would choke on.
 */
function withinLimits(
  fields: Record<string, FieldValue>,
  problems: RecordProblem[],
): Record<string, FieldValue> {
  let checked = fields;
  for (const column in fields) {
    const value = fields[column];
    if (typeof value !== 'object' || value === null) continue;
    const reason = checkNested(value, MAX_NESTED_VALUE);
    if (reason === undefined) continue;
    problems.push({ field: column, reason });
    if (checked === fields) checked = { ...fields };
    checked[column] = null;
  }
  return checked;
}

function hasKeys(object: object): boolean {
  for (const _ in object) return true;
  return false;
}

/** The defaults as message-field values, made once per set of defaults. */
const DEFAULT_VALUES = new WeakMap<MessageDefaults, Values>();

function defaultValues(d: MessageDefaults): Values {
  let values = DEFAULT_VALUES.get(d);
  if (!values) {
    values = valuesOf(d);
    DEFAULT_VALUES.set(d, values);
  }
  return values;
}

function valuesOf(d: MessageDefaults): Values {
  const values: Values = { Gateway: String(d.gateway), Price: String(d.price) };
  if (d.originatorAddress !== undefined) values.OriginatorAddress = d.originatorAddress;
  if (d.messageType !== undefined) values.MessageType = d.messageType;
  if (d.validationPeriod !== undefined) values.ValidationPeriod = d.validationPeriod;
  if (d.category !== undefined) values.Category = d.category;
  if (d.deliveryReportUrl !== undefined) values.DeliveryReportUrl = d.deliveryReportUrl;
  if (d.serviceCode !== undefined) values.ServiceCode = d.serviceCode;
  if (d.serviceDescription !== undefined) values.ServiceDescription = d.serviceDescription;
  return values;
}

/**
 * The last value each rule saw, with its verdict: most values are the campaign's defaults, the
 * same on every record, and the rules are pure, so a repeat costs a comparison (not a BigInt).
 */
const LAST_CHECKED = new Map<Check, { value: string; reason: string | undefined }>();

function check(
  problems: RecordProblem[],
  field: string,
  value: string | undefined,
  rule: Check,
): void {
  if (value === undefined) return;
  let last = LAST_CHECKED.get(rule);
  if (last?.value !== value) {
    last = { value, reason: rule(value) };
    LAST_CHECKED.set(rule, last);
  }
  if (last.reason) problems.push({ field, reason: last.reason });
}

function asText(value: FieldValue | undefined): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** Template names match columns exactly first, then ignoring case. */
function lookup(fields: Record<string, FieldValue>, name: string): string | undefined {
  if (name in fields) return asText(fields[name]);
  const lower = name.toLowerCase();
  for (const key of Object.keys(fields))
    if (key.toLowerCase() === lower) return asText(fields[key]);
  return undefined;
}

function parseCustomData(value: FieldValue): Record<string, unknown> | string {
  if (isPlainObject(value)) return value;
  if (typeof value === 'string') {
    try {
      const parsed: unknown = JSON.parse(value);
      if (isPlainObject(parsed)) return parsed;
    } catch {
      // Reported below with the expected form.
    }
  }
  return 'must be a JSON object such as {"qos": 1}';
}
