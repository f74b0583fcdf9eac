// Exponential backoff with full jitter (AWS architecture blog): spreads retries so clients do not stampede.

export interface BackoffOptions {
  baseMs: number;
  capMs: number;
}

export const DEFAULT_BACKOFF: BackoffOptions = { baseMs: 500, capMs: 30_000 };

/** Delay before retry number `attempt` (1 = first retry); `random` in [0, 1) is injectable for tests. */
export function backoffDelay(
  attempt: number,
  options: BackoffOptions = DEFAULT_BACKOFF,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(options.capMs, options.baseMs * 2 ** (attempt - 1));
  return Math.floor(random() * ceiling);
}
