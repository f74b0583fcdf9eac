// The premium rule, one definition for the client's validation and the simulator's (docs/gateway.md#the-premium-rule).

/**
 * Gateways below this are a country's short-number gateways (1933 in Norway), the only ones where
 * premium (Price > 0) works; 99700999, the cross-country gateway, and every other long gateway
 * number carry Price 0 only.
 */
export const SHORT_NUMBER_GATEWAY_LIMIT = 100_000;

export function isShortNumberGateway(gateway: number): boolean {
  return gateway > 0 && gateway < SHORT_NUMBER_GATEWAY_LIMIT;
}

/** Whether a message with this Price may go through this Gateway. */
export function premiumAllowed(price: number, gateway: number): boolean {
  return price <= 0 || isShortNumberGateway(gateway);
}
