// The premium rule is one definition: the client's validation and the simulator's agree on every gateway.
import { describe, expect, it } from 'vitest';
import { checkPremium } from '../../src/message/rules.js';
import { premiumAllowed, SHORT_NUMBER_GATEWAY_LIMIT } from '../../src/shared/premium.js';
import { checkMessage } from '../../src/simulator/rules.js';
import { STATUS_CODES } from '../../src/simulator/status-codes.js';

function simulatorAccepts(gateway: number, price: number): boolean {
  const check = checkMessage({
    Gateway: gateway,
    DestinationAddress: '4741234567',
    Price: price,
    UserData: 'hi',
  });
  if (!check.ok) expect(check.code).toBe(STATUS_CODES.premiumGateway.code);
  return check.ok;
}

describe('premium rule', () => {
  it('client and simulator refuse gateway 200000 with Price 500 alike (the client used to pass it)', () => {
    expect(checkPremium(500, 200000)).toBe(
      'Price 500 needs a short-number gateway (premium is not possible on 200000)',
    );
    expect(simulatorAccepts(200000, 500)).toBe(false);
  });

  it.each([
    [1933, 500, true],
    [1933, 0, true],
    [SHORT_NUMBER_GATEWAY_LIMIT - 1, 1, true],
    [SHORT_NUMBER_GATEWAY_LIMIT, 1, false],
    [200000, 500, false],
    [200000, 0, true],
    [99700999, 1, false],
    [99700999, 0, true],
  ])('gateway %d, Price %d: allowed %s by both', (gateway, price, allowed) => {
    expect(premiumAllowed(price, gateway)).toBe(allowed);
    expect(checkPremium(price, gateway) === undefined).toBe(allowed);
    expect(simulatorAccepts(gateway, price)).toBe(allowed);
  });
});
