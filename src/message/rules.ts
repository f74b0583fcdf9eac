// Field rules of the gateway (docs/gateway.md#fields-and-their-limits), one small checker per field; undefined means fine.
import { LIMITS } from '../gateway/types.js';
import { premiumAllowed } from '../shared/premium.js';
import type { TextInfo } from './encoding.js';

const HEX = /^(?:[0-9a-fA-F]{2})+$/;
const MAX_INT64 = 9_223_372_036_854_775_807n;
const MAX_INT32 = 2_147_483_647;

export type Check = (value: string) => string | undefined;

const maxLength =
  (limit: number): Check =>
  (value) =>
    value.length > limit ? `is ${value.length} characters (at most ${limit})` : undefined;

export const checkGatewayField: Check = (value) => {
  if (!/^[1-9][0-9]*$/.test(value)) return 'must be a positive whole number such as 99700999';
  if (BigInt(value) > MAX_INT64) return 'is larger than a 64-bit integer';
  if (!Number.isSafeInteger(Number(value))) return 'is too large to send exactly';
  return undefined;
};

export const checkPrice: Check = (value) => {
  if (!/^[0-9]+$/.test(value)) return 'must be a whole number of øre, 0 or more';
  if (Number(value) > MAX_INT32) return 'is larger than a 32-bit integer';
  return undefined;
};

/** Premium needs a short-number gateway: the same rule the simulator applies (shared/premium.ts). */
export function checkPremium(price: number, gateway: number): string | undefined {
  return premiumAllowed(price, gateway)
    ? undefined
    : `Price ${price} needs a short-number gateway (premium is not possible on ${gateway})`;
}

export const checkOriginator: Check = (value) => {
  if (/^\+?[0-9]+$/.test(value)) {
    const digits = value.replace('+', '').length;
    return digits > LIMITS.OriginatorAddress
      ? `numeric sender is ${digits} digits (at most ${LIMITS.OriginatorAddress})`
      : undefined;
  }
  if (value.trim() === '') return 'is empty';
  if (!/^[\x20-\x7e]+$/.test(value)) {
    return `alphanumeric sender "${value}" must be printable ASCII (letters a-z, digits, spaces)`;
  }
  if (value.length > LIMITS.OriginatorAlphanumeric) {
    return `alphanumeric sender "${value}" is ${value.length} characters (at most ${LIMITS.OriginatorAlphanumeric})`;
  }
  return undefined;
};

export const checkMessageType: Check = (value) =>
  value.length === LIMITS.MessageType
    ? undefined
    : 'must be two characters such as "00", "10" or "11"';

export const checkUserDataHeader: Check = (value) =>
  !HEX.test(value) ? 'must be hex (pairs of 0-9, A-F)' : maxLength(LIMITS.UserDataHeader)(value);

export function checkUserData(
  text: string,
  messageType: string,
  info: Pick<TextInfo, 'encoding' | 'segments'>,
): string | undefined {
  if (text === '') return 'is empty';
  if (messageType === '00' && text.length > 160) {
    return `is ${text.length} characters, but MessageType "00" allows 160; use "11" (or leave MessageType unset)`;
  }
  if (messageType === '00' && info.segments > 1) {
    return `needs ${info.segments} ${info.encoding} segments, but MessageType "00" is a single message; use "11" (or leave MessageType unset)`;
  }
  if (messageType === '10' && !HEX.test(text)) {
    return 'must be hex (pairs of 0-9, A-F) when MessageType is "10" (binary)';
  }
  return text.length > LIMITS.UserData
    ? `is ${text.length} characters (at most ${LIMITS.UserData})`
    : undefined;
}

export const checkDeliveryReportUrl: Check = (value) => {
  const tooLong = maxLength(LIMITS.DeliveryReportUrl)(value);
  if (tooLong) return tooLong;
  // Placeholders such as [$MSGID] are not valid URL characters until the gateway fills them.
  let url: URL;
  try {
    url = new URL(value.replace(/\[\$[A-Z]+\]/g, 'x'));
  } catch {
    return 'must be an absolute http(s) URL';
  }
  return url.protocol === 'http:' || url.protocol === 'https:'
    ? undefined
    : 'must be an absolute http(s) URL';
};

export const checkCategory = maxLength(LIMITS.Category);
export const checkServiceCode = maxLength(LIMITS.ServiceCode);
export const checkServiceDescription = maxLength(LIMITS.ServiceDescription);
