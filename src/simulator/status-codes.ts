// The simulator's own StatusCode table: the real list is unpublished, so these numbers are ours to document.

/**
 * One StatusCode the simulator can return for a message.
 *
 * The real gateway publishes only "0 means success" (docs/gateway.md#answers-and-failures), so a
 * client must treat every other code as an opaque rejection and show its
 * StatusDescription. The numbers below belong to the simulator alone; nothing in
 * sms-send may branch on them except the simulator's own tests.
 */
export interface StatusCodeInfo {
  readonly code: number;
  /** What the code means, as docs/gateway.md#status-codes shows it. */
  readonly meaning: string;
}

/**
 * Every StatusCode the simulator returns, in the order the rules are checked.
 *
 * Decisions where the service interface is silent (docs/gateway.md#where-the-simulator-decides):
 * - A message that breaks several rules gets the code of the first rule in this order
 *   (the order of the fields in the contract's RestSmsMessageReq table).
 * - JSON null counts as "not set"; an empty string counts as "not set" for the
 *   optional fields, and as missing for UserData.
 * - Fields the contract declares as "any value" (Gateway, DestinationAddress, Price,
 *   OriginatorAddress, ValidationPeriod) accept a JSON number or a string, the way the
 *   real server's lenient deserialiser does; other string fields accept a number too.
 * - Lengths count UTF-16 code units, as .NET string lengths do on the real server.
 * - MessageType is "00" (text ≤ 160), "11" (longer text, split by the server) or "10"
 *   (binary: UserData is hex). "00" with UserData longer than 160 is rejected rather
 *   than silently split, so a client that forgets the contract's "11" rule is caught.
 * - A relative ValidationPeriod is accepted in any form up to 14 characters (its
 *   format is unpublished); an all-digit value must be a real yyyymmddhhmmss timestamp.
 * - A short-number gateway is one below 100000 (e.g. 1933); premium (Price > 0) is
 *   refused anywhere else, 99700999 included.
 * - Rejected messages still get a TransactionId (the contract makes it required) but
 *   no ledger entry.
 */
export const STATUS_CODES = {
  accepted: { code: 0, meaning: 'Accepted for delivery' },
  notAnObject: { code: 100, meaning: 'The Messages item is not a JSON object' },
  gateway: { code: 101, meaning: 'Gateway missing or not a positive integer' },
  originator: {
    code: 102,
    meaning:
      'OriginatorAddress invalid: alphanumeric longer than 11 characters or not printable ASCII, or numeric longer than 25 digits',
  },
  destination: {
    code: 103,
    meaning: 'DestinationAddress missing or not a valid MSISDN (8–15 digits, no leading 0)',
  },
  price: { code: 104, meaning: 'Price missing or not a non-negative 32-bit integer' },
  premiumGateway: {
    code: 105,
    meaning: 'Price > 0 (premium) on a gateway that is not a short-number gateway (< 100000)',
  },
  messageType: { code: 106, meaning: 'MessageType not one of "00", "10", "11"' },
  validationPeriod: {
    code: 107,
    meaning:
      'ValidationPeriod longer than 14 characters, all digits but not a valid yyyymmddhhmmss, or not a string',
  },
  messageId: { code: 108, meaning: 'MessageId longer than 32 characters or not a string' },
  userDataHeader: {
    code: 109,
    meaning: 'UserDataHeader not an even-length hex string of at most 32 characters',
  },
  userDataMissing: { code: 110, meaning: 'UserData missing, empty or not a string' },
  userDataTooLong: { code: 111, meaning: 'UserData longer than 1024 characters' },
  userDataTooLongForText: {
    code: 112,
    meaning: 'UserData longer than 160 characters with MessageType "00" (use "11")',
  },
  userDataNotHex: {
    code: 113,
    meaning: 'UserData not an even-length hex string with MessageType "10" (binary)',
  },
  category: { code: 114, meaning: 'Category longer than 32 characters or not a string' },
  customData: { code: 115, meaning: 'CustomData not a JSON object' },
  deliveryReportUrl: {
    code: 116,
    meaning: 'DeliveryReportUrl longer than 2048 characters or not a string',
  },
  serviceCode: { code: 117, meaning: 'ServiceCode longer than 128 characters or not a string' },
  serviceDescription: {
    code: 118,
    meaning: 'ServiceDescription longer than 512 characters or not a string',
  },
  simulatedRejection: {
    code: 120,
    meaning: 'Rejected by simulated operator fault (fault `rejectMessage`)',
  },
} as const satisfies Record<string, StatusCodeInfo>;

/** The name of one entry of {@link STATUS_CODES}. */
export type StatusCodeName = keyof typeof STATUS_CODES;

/** The table as rows, for documentation and for `sms-send simulate --help`-style listings. */
export function statusCodeTable(): readonly StatusCodeInfo[] {
  return Object.values(STATUS_CODES);
}
