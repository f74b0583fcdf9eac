// yyyymmddhhmmss in UTC: the shape of an absolute ValidationPeriod and of the simulator's [$TIMESTAMP].

const COMPACT = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})$/;

/** A Date as yyyymmddhhmmss in UTC, whatever the process's time zone. */
export function formatTimestamp(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return (
    String(date.getUTCFullYear()) +
    pad(date.getUTCMonth() + 1) +
    pad(date.getUTCDate()) +
    pad(date.getUTCHours()) +
    pad(date.getUTCMinutes()) +
    pad(date.getUTCSeconds())
  );
}

/**
 * Milliseconds since the epoch of a yyyymmddhhmmss UTC timestamp, or undefined unless it is a
 * real date and time (no 30 February, no hour 24). Years 0000–0099 are refused: Date.UTC reads
 * them as 1900–1999, and nobody means year 99 in an SMS.
 */
export function parseCompactTimestamp(text: string): number | undefined {
  const match = COMPACT.exec(text);
  if (!match) return undefined;
  const [y, mo, d, h, mi, s] = match.slice(1).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const ms = Date.UTC(y, mo - 1, d, h, mi, s);
  // Date.UTC rolls 30 February over into March; reading the parts back catches every such case.
  const back = new Date(ms);
  return back.getUTCFullYear() === y &&
    back.getUTCMonth() === mo - 1 &&
    back.getUTCDate() === d &&
    back.getUTCHours() === h &&
    back.getUTCMinutes() === mi &&
    back.getUTCSeconds() === s
    ? ms
    : undefined;
}
