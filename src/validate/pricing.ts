// The cost estimate of a campaign: messages and segments by calling code, priced per segment.
import { callingCode, priceFor, roundMoney, type PricePerSegment } from '../message/cost.js';
import type { CodeSums, CostEstimate } from './types.js';

export class CostTally {
  /** By calling code, in order of first use. */
  readonly byCode = new Map<string, CodeSums>();

  constructor(private readonly pricing: PricePerSegment) {}

  /** Counts a message to `to`; answers the price of one of its segments. */
  add(to: string, segments: number): number {
    const code = callingCode(to);
    const sums = this.byCode.get(code) ?? { messages: 0, segments: 0 };
    sums.messages++;
    sums.segments += segments;
    this.byCode.set(code, sums);
    return priceFor(this.pricing, code);
  }

  merge(next: readonly [string, CodeSums][]): void {
    for (const [code, sums] of next) {
      const known = this.byCode.get(code) ?? { messages: 0, segments: 0 };
      known.messages += sums.messages;
      known.segments += sums.segments;
      this.byCode.set(code, known);
    }
  }

  estimate(options: { currency?: string; maxCost?: number }): CostEstimate {
    return estimate(this.byCode, this.pricing, options);
  }
}

function estimate(
  byCode: ReadonlyMap<string, { messages: number; segments: number }>,
  pricing: PricePerSegment,
  options: { currency?: string; maxCost?: number },
): CostEstimate {
  const rows = [...byCode].map(([code, { messages, segments }]) => {
    const pricePerSegment = priceFor(pricing, code);
    return {
      callingCode: code,
      messages,
      segments,
      pricePerSegment,
      cost: roundMoney(segments * pricePerSegment),
    };
  });
  rows.sort(
    (a, b) =>
      b.cost - a.cost || b.segments - a.segments || Number(a.callingCode) - Number(b.callingCode),
  );
  return {
    ...(options.currency !== undefined ? { currency: options.currency } : {}),
    total: roundMoney(rows.reduce((sum, row) => sum + row.cost, 0)),
    byCallingCode: rows,
    ...(options.maxCost !== undefined ? { maxCost: options.maxCost } : {}),
  };
}
