// What a delivery status says about the message: the vendor publishes no list, so SMPP's words and their spelled-out forms.

/** SMPP's DELIVRD and the spelled-out form some gateways send, compared case-insensitively. */
const DELIVERED = new Set(['delivrd', 'delivered']);

/** On the way, not an end: SMPP's ENROUTE, and buffered for a phone that is off. */
const INTERIM = new Set(['enroute', 'buffred', 'buffered']);

/** Whether a delivery report's status says the message reached the phone. */
export function isDelivered(status: string | undefined): boolean {
  return status !== undefined && DELIVERED.has(status.trim().toLowerCase());
}

/** Whether a status is a step on the way (a final one may follow) rather than an end. */
export function isInterim(status: string): boolean {
  return INTERIM.has(status.trim().toLowerCase());
}
