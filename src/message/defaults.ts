// Checks the message defaults once, before any record: a bad --from is one error, not one per record.
import type { MessageDefaults } from '../config/settings.js';
import {
  checkCategory,
  checkDeliveryReportUrl,
  checkGateway,
  checkMessageType,
  checkOriginator,
  checkPremium,
  checkPrice,
  checkServiceCode,
  checkServiceDescription,
  type Check,
} from './rules.js';
import { normalizeValidity } from './validity.js';

export interface DefaultProblem {
  /** The config key; the CLI adds the flag name and where the value came from. */
  key: keyof MessageDefaults;
  reason: string;
}

type ScalarKey = Exclude<keyof MessageDefaults, 'customData'>;

const CHECKS: [ScalarKey, Check][] = [
  ['gateway', checkGateway],
  ['price', checkPrice],
  ['originatorAddress', checkOriginator],
  ['messageType', checkMessageType],
  ['category', checkCategory],
  ['deliveryReportUrl', checkDeliveryReportUrl],
  ['serviceCode', checkServiceCode],
  ['serviceDescription', checkServiceDescription],
];

export function checkDefaults(defaults: MessageDefaults, now: Date): DefaultProblem[] {
  const problems: DefaultProblem[] = [];
  for (const [key, check] of CHECKS) {
    const value = defaults[key];
    if (value === undefined) continue;
    const reason = check(String(value));
    if (reason) problems.push({ key, reason });
  }
  if (defaults.validationPeriod !== undefined) {
    const result = normalizeValidity(defaults.validationPeriod, now);
    if (!result.ok) problems.push({ key: 'validationPeriod', reason: result.reason });
  }
  if (!problems.some((p) => p.key === 'gateway' || p.key === 'price')) {
    const premium = checkPremium(Number(defaults.price), Number(defaults.gateway));
    if (premium) problems.push({ key: 'price', reason: premium });
  }
  return problems;
}
