// Parses durations given as seconds or with a unit ("500ms", "30s", "2m", "1h") into milliseconds.

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** Returns milliseconds, or undefined when the text is not a duration. */
export function parseDuration(value: string | number): number | undefined {
  if (typeof value === 'number')
    return Number.isFinite(value) && value >= 0 ? value * 1000 : undefined;
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?\s*$/i.exec(value);
  if (!match) return undefined;
  const amount = Number(match[1]);
  const unit = (match[2] ?? 's').toLowerCase();
  return Math.round(amount * (UNITS[unit] ?? 1000));
}
