// What a delivery status says about the message: the vendor publishes no list, so SMPP's words and their spelled-out forms.

/** SMPP's DELIVRD and the spelled-out form some gateways send, compared case-insensitively. */
const DELIVERED = new Set(['delivrd', 'delivered']);

/** Whether a delivery report's status says the message reached the phone. */
export function isDelivered(status: string | undefined): boolean {
  return status !== undefined && DELIVERED.has(status.trim().toLowerCase());
}
