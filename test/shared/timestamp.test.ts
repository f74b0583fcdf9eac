// yyyymmddhhmmss read in one place: client validity, simulator rules and dlr matching agree on it.
import { describe, expect, it } from 'vitest';
import { normalizeValidity } from '../../src/message/validity.js';
import { parseTimestamp } from '../../src/dlr/matching.js';
import { parseCompactTimestamp } from '../../src/shared/timestamp.js';
import { checkMessage } from '../../src/simulator/rules.js';

const NOW = new Date(Date.UTC(2025, 5, 1, 12, 0, 0));

function simulatorAccepts(validity: string): boolean {
  return checkMessage({
    Gateway: 99700999,
    DestinationAddress: '4741234567',
    Price: 0,
    UserData: 'hi',
    ValidationPeriod: validity,
  }).ok;
}

describe('parseCompactTimestamp', () => {
  it.each([
    ['20250601120000', Date.UTC(2025, 5, 1, 12, 0, 0)],
    ['20240229235959', Date.UTC(2024, 1, 29, 23, 59, 59)],
    ['99991231235959', Date.UTC(9999, 11, 31, 23, 59, 59)],
  ])('reads %s', (text, ms) => {
    expect(parseCompactTimestamp(text)).toBe(ms);
  });

  it.each([
    '20250230120000',
    '19000229120000',
    '20251301000000',
    '20250101240000',
    '00500101000000',
    '00000101000000',
    '2025060112000',
    ' 20250601120000',
    '2025-06-01T12:00',
  ])('refuses %j', (text) => {
    expect(parseCompactTimestamp(text)).toBeUndefined();
  });

  // The simulator used to accept years 0001-0099 that the client refused.
  it.each(['20250601130000', '20250230120000', '00500101000000', '20250101006000'])(
    'client, simulator and dlr agree on %s',
    (text) => {
      const client = normalizeValidity(text, NOW).ok;
      expect(simulatorAccepts(text)).toBe(client);
      expect(parseTimestamp(text) !== undefined).toBe(client);
    },
  );
});
