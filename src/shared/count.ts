// Counts with thousands separators ("12,345"), as en-US writes them, without waking ICU at start-up; amounts of money.

/**
 * The first toLocaleString() of a run loads ICU's locale data, a cost at every start for a
 * summary line; whole numbers are grouped here instead, anything else is left to ICU.
 */
export function groupDigits(n: number): string {
  if (!Number.isSafeInteger(n)) return n.toLocaleString('en-US');
  const grouped = String(Math.abs(n)).replace(/\B(?=(\d{3})+$)/g, ',');
  return n < 0 ? `-${grouped}` : grouped;
}

/** "1 record", "12,345 records": a count and its noun. */
export function plural(n: number, word: string, many = `${word}s`): string {
  return `${groupDigits(n)} ${n === 1 ? word : many}`;
}

/** An amount of money: `1,234.50`, more decimals when a price has them (`0.035`), and the currency. */
export function formatMoney(amount: number, currency?: string): string {
  const number = amount.toLocaleString('en-US', {
    minimumFractionDigits: 2,
    maximumFractionDigits: 4,
  });
  return currency === undefined ? number : `${number} ${currency}`;
}
