// Request-level (credentials) and per-message validation, mirroring the service interface and the
// limits of the gateway's request types (docs/gateway.md#fields-and-their-limits).
import { createHash, timingSafeEqual } from 'node:crypto';
import { DEFAULT_GATEWAY, LIMITS } from '../gateway/types.js';
import { isPlainObject } from '../shared/plain-object.js';
import { decimal } from '../shared/digits.js';
import { premiumAllowed } from '../shared/premium.js';
import { parseCompactTimestamp } from '../shared/timestamp.js';
import { STATUS_CODES, type StatusCodeName } from './status-codes.js';

/** An object's properties keyed by lower-cased name: the real server matches names case-insensitively. */
export type FoldedFields = Record<string, unknown>;

/** Credentials the simulator insists on; when absent any well-formed pair is accepted. */
export interface Credentials {
  username: string;
  password: string;
}

/** The outcome of checking one Messages item. */
export type MessageCheck =
  | {
      ok: true;
      messageId: string;
      destination: string;
      gateway: number;
      /** Set only when non-empty, for the optional delivery reports. */
      deliveryReportUrl: string | undefined;
    }
  | { ok: false; messageId: string; code: number; description: string };

const MSISDN = /^[1-9][0-9]{7,14}$/;
const DIGITS = /^[0-9]+$/;
const NUMERIC_ORIGINATOR = /^\+?[0-9]+$/;
const PRINTABLE_ASCII = /^[\x20-\x7e]+$/;
const HEX = /^(?:[0-9a-fA-F]{2})+$/;
const MESSAGE_TYPES = new Set(['00', '10', '11']);
const TEXT_MAX = 160;
const PRICE_MAX = 2 ** 31 - 1;
const SHOWN_MAX = 40;

/** A value of the wrong JSON type for a string field (object, array, boolean). */
const WRONG_TYPE = Symbol('wrong type');
type Text = string | undefined | typeof WRONG_TYPE;

/** A null-prototype copy so a `__proto__` key in the JSON is just another (ignored) field. */
export function foldKeys(object: Record<string, unknown>): FoldedFields {
  const folded: FoldedFields = Object.create(null) as FoldedFields;
  for (const key in object) folded[key.toLowerCase()] = object[key];
  return folded;
}

/** JSON null and absence both mean "not set"; numbers become strings as the server's deserialiser does. */
function textOf(value: unknown): Text {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return decimal(value);
  return WRONG_TYPE;
}

/** A whole number given as a JSON number or a digit string, as a 64-bit server field would accept. */
function integerOf(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isSafeInteger(value) ? value : undefined;
  if (typeof value === 'string' && DIGITS.test(value) && value.length <= 16) {
    const n = Number(value);
    return Number.isSafeInteger(n) ? n : undefined;
  }
  return undefined;
}

/** Descriptions quote the offending value, shortened so they stay far below the 2048 limit. */
function show(value: unknown): string {
  const text = typeof value === 'string' ? JSON.stringify(value) : String(JSON.stringify(value));
  return text.length > SHOWN_MAX ? `${text.slice(0, SHOWN_MAX)}…` : text;
}

type Rejected = Extract<MessageCheck, { ok: false }>;

function reject(messageId: string, name: StatusCodeName, description: string): Rejected {
  return { ok: false, messageId, code: STATUS_CODES[name].code, description };
}

/** Checks an optional string field against its maximum length; returns the failure text or undefined. */
function tooLong(field: string, value: Text, max: number): string | undefined {
  if (value === WRONG_TYPE) return `${field} must be a string`;
  if (value !== undefined && value.length > max) {
    return `${field} is ${value.length} characters long (maximum ${max})`;
  }
  return undefined;
}

/** An optional text field: its type, then its length, then its form; the first problem found. */
function optionalText(
  value: Text,
  field: string,
  max: number,
  wrongType: string,
  form: (text: string) => string | undefined,
): string | undefined {
  if (value === WRONG_TYPE) return wrongType;
  if (value === undefined || value === '') return undefined;
  return tooLong(field, value, max) ?? form(value);
}

/**
 * Checks one Messages item; the first failing rule decides the code (order in status-codes.ts).
 * Kept allocation-light: it runs for every message of the benchmark, so each check answers its
 * value or a rejection, never a new object when the item is fine.
 */
export function checkMessage(item: unknown): MessageCheck {
  if (!isPlainObject(item)) {
    const kind = item === null ? 'null' : Array.isArray(item) ? 'an array' : typeof item;
    return reject('', 'notAnObject', `Messages item is ${kind}, expected a JSON object`);
  }
  const f = foldKeys(item);
  const idText = textOf(f['messageid']);
  const messageId = typeof idText === 'string' ? idText : '';
  const gateway = gatewayOf(f, messageId);
  if (typeof gateway !== 'number') return gateway;
  const originator = originatorProblem(f, messageId);
  if (originator) return originator;
  const destination = destinationOf(f, messageId);
  if (typeof destination !== 'string') return destination;
  const price = priceProblem(f, messageId, gateway);
  if (price) return price;
  const messageType = messageTypeOf(f, messageId);
  if (typeof messageType === 'object') return messageType;
  const fields =
    fieldProblem(f, messageId, idText) ??
    userDataProblem(f, messageId, messageType) ??
    extrasProblem(f, messageId);
  if (fields) return fields;
  const reportUrl = textOf(f['deliveryreporturl']);
  const deliveryReportUrl =
    typeof reportUrl === 'string' && reportUrl !== '' ? reportUrl : undefined;
  return { ok: true, messageId, destination, gateway, deliveryReportUrl };
}

function gatewayOf(f: FoldedFields, messageId: string): number | Rejected {
  const gatewayRaw = f['gateway'];
  const gateway = integerOf(gatewayRaw);
  if (gatewayRaw === undefined || gatewayRaw === null) {
    return reject(messageId, 'gateway', `Gateway is required (e.g. ${DEFAULT_GATEWAY})`);
  }
  if (gateway === undefined || gateway <= 0) {
    return reject(messageId, 'gateway', `Gateway ${show(gatewayRaw)} is not a positive integer`);
  }
  return gateway;
}

function originatorProblem(f: FoldedFields, messageId: string): Rejected | undefined {
  const originator = textOf(f['originatoraddress']);
  if (originator === WRONG_TYPE) {
    return reject(messageId, 'originator', 'OriginatorAddress must be a string or a number');
  }
  if (originator !== undefined && originator !== '') {
    if (NUMERIC_ORIGINATOR.test(originator)) {
      const digits = originator.startsWith('+') ? originator.length - 1 : originator.length;
      if (digits > LIMITS.OriginatorAddress) {
        return reject(
          messageId,
          'originator',
          `OriginatorAddress ${show(originator)} has ${digits} digits (maximum ${LIMITS.OriginatorAddress} when numeric)`,
        );
      }
    } else if (originator.length > LIMITS.OriginatorAlphanumeric) {
      return reject(
        messageId,
        'originator',
        `OriginatorAddress ${show(originator)} is ${originator.length} characters long (maximum ${LIMITS.OriginatorAlphanumeric} when alphanumeric)`,
      );
    } else if (!PRINTABLE_ASCII.test(originator)) {
      return reject(
        messageId,
        'originator',
        `OriginatorAddress ${show(originator)} must be printable ASCII when alphanumeric`,
      );
    }
  }
  return undefined;
}

function destinationOf(f: FoldedFields, messageId: string): string | Rejected {
  const destinationRaw = f['destinationaddress'];
  let destination: string | undefined;
  if (typeof destinationRaw === 'string') destination = destinationRaw;
  else if (typeof destinationRaw === 'number' && Number.isSafeInteger(destinationRaw)) {
    destination = decimal(destinationRaw);
  }
  if (destinationRaw === undefined || destinationRaw === null) {
    return reject(messageId, 'destination', 'DestinationAddress is required');
  }
  if (destination === undefined || !MSISDN.test(destination)) {
    return reject(
      messageId,
      'destination',
      `DestinationAddress ${show(destinationRaw)} is not a valid MSISDN (8 to 15 digits in international form, no leading 0 or +)`,
    );
  }
  return destination;
}

function priceProblem(f: FoldedFields, messageId: string, gateway: number): Rejected | undefined {
  const priceRaw = f['price'];
  const price = integerOf(priceRaw);
  if (priceRaw === undefined || priceRaw === null) {
    return reject(messageId, 'price', 'Price is required (use 0 when not premium)');
  }
  if (price === undefined || price < 0 || price > PRICE_MAX) {
    return reject(
      messageId,
      'price',
      `Price ${show(priceRaw)} is not a non-negative 32-bit integer`,
    );
  }
  if (!premiumAllowed(price, gateway)) {
    return reject(
      messageId,
      'premiumGateway',
      `Price ${price} (premium) needs a short-number gateway; Gateway ${gateway} is not one`,
    );
  }
  return undefined;
}

/** MessageType, when given ("00", "10" or "11"). */
function messageTypeOf(f: FoldedFields, messageId: string): string | undefined | Rejected {
  const messageTypeText = textOf(f['messagetype']);
  const messageType = messageTypeText === '' ? undefined : messageTypeText;
  if (
    messageType !== undefined &&
    (messageType === WRONG_TYPE || !MESSAGE_TYPES.has(messageType))
  ) {
    return reject(
      messageId,
      'messageType',
      `MessageType ${show(f['messagetype'])} is not one of "00", "10", "11"`,
    );
  }
  return messageType;
}

/** ValidationPeriod, MessageId and UserDataHeader. */
function fieldProblem(f: FoldedFields, messageId: string, idText: Text): Rejected | undefined {
  const validityProblem = optionalText(
    textOf(f['validationperiod']),
    'ValidationPeriod',
    LIMITS.ValidationPeriod,
    'ValidationPeriod must be a string',
    (text) =>
      DIGITS.test(text) && parseCompactTimestamp(text) === undefined
        ? `ValidationPeriod ${show(text)} is not a valid yyyymmddhhmmss timestamp`
        : undefined,
  );
  if (validityProblem) return reject(messageId, 'validationPeriod', validityProblem);

  const idProblem = tooLong('MessageId', idText, LIMITS.MessageId);
  if (idProblem !== undefined) return reject(messageId, 'messageId', idProblem);

  const headerProblem = optionalText(
    textOf(f['userdataheader']),
    'UserDataHeader',
    LIMITS.UserDataHeader,
    'UserDataHeader must be a hex string',
    (text) =>
      HEX.test(text) ? undefined : `UserDataHeader ${show(text)} is not an even-length hex string`,
  );
  if (headerProblem) return reject(messageId, 'userDataHeader', headerProblem);
  return undefined;
}

function userDataProblem(
  f: FoldedFields,
  messageId: string,
  messageType: string | undefined,
): Rejected | undefined {
  const userData = textOf(f['userdata']);
  if (userData === WRONG_TYPE) {
    return reject(messageId, 'userDataMissing', 'UserData must be a string');
  }
  if (userData === undefined || userData === '') {
    return reject(messageId, 'userDataMissing', 'UserData is required and must not be empty');
  }
  if (userData.length > LIMITS.UserData) {
    return reject(
      messageId,
      'userDataTooLong',
      `UserData is ${userData.length} characters long (maximum ${LIMITS.UserData})`,
    );
  }
  if (messageType === '00' && userData.length > TEXT_MAX) {
    return reject(
      messageId,
      'userDataTooLongForText',
      `UserData is ${userData.length} characters long; MessageType "00" allows ${TEXT_MAX} (use "11")`,
    );
  }
  if (messageType === '10' && !HEX.test(userData)) {
    return reject(
      messageId,
      'userDataNotHex',
      'UserData must be an even-length hex string when MessageType is "10" (binary)',
    );
  }
  return undefined;
}

/** Category, CustomData, DeliveryReportUrl, ServiceCode and ServiceDescription. */
function extrasProblem(f: FoldedFields, messageId: string): Rejected | undefined {
  const categoryProblem = tooLong('Category', textOf(f['category']), LIMITS.Category);
  if (categoryProblem !== undefined) return reject(messageId, 'category', categoryProblem);

  const customData = f['customdata'];
  if (customData !== undefined && customData !== null && !isPlainObject(customData)) {
    return reject(
      messageId,
      'customData',
      `CustomData must be a JSON object, not ${Array.isArray(customData) ? 'an array' : typeof customData}`,
    );
  }

  const reportUrl = textOf(f['deliveryreporturl']);
  const urlProblem = tooLong('DeliveryReportUrl', reportUrl, LIMITS.DeliveryReportUrl);
  if (urlProblem !== undefined) return reject(messageId, 'deliveryReportUrl', urlProblem);

  const codeProblem = tooLong('ServiceCode', textOf(f['servicecode']), LIMITS.ServiceCode);
  if (codeProblem !== undefined) return reject(messageId, 'serviceCode', codeProblem);

  const descriptionProblem = tooLong(
    'ServiceDescription',
    textOf(f['servicedescription']),
    LIMITS.ServiceDescription,
  );
  if (descriptionProblem !== undefined) {
    return reject(messageId, 'serviceDescription', descriptionProblem);
  }
  return undefined;
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

/**
 * Builds the request-level credential check. It returns the ProcessResultDescription for a
 * refusal, or undefined when the credentials pass. Descriptions never contain the password.
 */
export function credentialCheck(
  expected?: Credentials,
): (request: FoldedFields) => string | undefined {
  // Digests of equal length let timingSafeEqual compare secrets of any length.
  const want = expected && {
    username: digest(expected.username),
    password: digest(expected.password),
  };
  return (request) => {
    const username = textOf(request['username']);
    const password = textOf(request['password']);
    if (username === WRONG_TYPE) return 'Authentication failed: Username must be a string';
    if (username === undefined || username === '') {
      return 'Authentication failed: Username is missing or empty';
    }
    if (username.length > LIMITS.Username) {
      return `Authentication failed: Username is longer than ${LIMITS.Username} characters`;
    }
    if (password === WRONG_TYPE) return 'Authentication failed: Password must be a string';
    if (password === undefined || password === '') {
      return 'Authentication failed: Password is missing or empty';
    }
    if (password.length > LIMITS.Password) {
      return `Authentication failed: Password is longer than ${LIMITS.Password} characters`;
    }
    if (want) {
      // Both compared always, so the answer time does not tell which one was wrong.
      const userOk = timingSafeEqual(digest(username), want.username);
      const passwordOk = timingSafeEqual(digest(password), want.password);
      if (!userOk || !passwordOk) return 'Authentication failed: wrong Username or Password';
    }
    return undefined;
  };
}
