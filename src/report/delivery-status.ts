// What a delivery status says about the message: the vendor publishes no list, so SMPP's words and their spelled-out forms.

/** SMPP's DELIVRD and the spelled-out form some gateways send, compared case-insensitively. */
const DELIVERED = new Set(['delivrd', 'delivered']);

/** On the way, not an end: SMPP's ENROUTE, and buffered for a phone that is off. */
const INTERIM = new Set(['enroute', 'buffred', 'buffered']);

/**
 * Final failures: SMPP's UNDELIV, EXPIRED, REJECTD, DELETED and their spelled-out forms (what
 * `retry --include undelivered` re-sends). Pending states (ENROUTE, ACCEPTD, BUFFERED) and UNKNOWN
 * are not final failures, so they are never taken for one.
 */
const UNDELIVERED = /^(undeliv|expire|reject|delete|fail)/i;

/** Whether a delivery report's status says the message reached the phone. */
export function isDelivered(status: string | undefined): boolean {
  return status !== undefined && DELIVERED.has(status.trim().toLowerCase());
}

/** Whether a status is a step on the way (a final one may follow) rather than an end. */
export function isInterim(status: string): boolean {
  return INTERIM.has(status.trim().toLowerCase());
}

/** Whether a status says the message will not reach the phone. */
export function isUndelivered(status: string): boolean {
  return UNDELIVERED.test(status.trim());
}

/**
 * Whether a report row's message may be at the gateway: unknown, or accepted (a delivery report
 * may have confirmed an unknown one since) without a final failure. A follow-up that re-sends
 * such a row may make its message arrive twice.
 */
export function mayBeHeld(values: Readonly<Record<string, unknown>>): boolean {
  const outcome = values['outcome'];
  if (outcome === 'unknown') return true;
  const delivery = values['deliveryStatus'];
  return outcome === 'accepted' && !(typeof delivery === 'string' && isUndelivered(delivery));
}
