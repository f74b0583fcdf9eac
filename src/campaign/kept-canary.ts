// The canary's delivery reports as a fleet's receivers keep them in the shared store: read again
// until the wait ends, each new one passed on as it would come from a receiver of check's own.
import type { CanaryReport, CanaryReports } from '../dlr/canary.js';
import type { DeliveryShelf } from '../journal/store.js';

/** How often the store is asked: a delivery report seen within a fraction of a second. */
export const CANARY_READ_MS = 250;

export interface KeptCanary {
  reports: CanaryReports;
  /** Why the last read failed, while the store does not answer; undefined once it does again. */
  trouble: () => string | undefined;
}

/** Reads the kept reports of `messageId` every `everyMs` while someone listens. */
export function keptCanary(
  shelf: DeliveryShelf,
  messageId: string,
  everyMs = CANARY_READ_MS,
): KeptCanary {
  let trouble: string | undefined;
  const reports: CanaryReports = (onReport) => {
    let seen = 0;
    let stopped = false;
    let timer: NodeJS.Timeout | undefined;
    const read = async () => {
      try {
        const kept = await shelf.canary(messageId);
        trouble = undefined;
        for (const report of kept.slice(seen)) {
          if (stopped) return;
          onReport(report satisfies CanaryReport);
        }
        seen = Math.max(seen, kept.length);
      } catch (error) {
        // The store may be restarting: the wait goes on, and its end says why nothing came.
        trouble = error instanceof Error ? error.message : String(error);
      }
      if (!stopped) timer = setTimeout(() => void read(), everyMs);
    };
    void read();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  };
  return { reports, trouble: () => trouble };
}
