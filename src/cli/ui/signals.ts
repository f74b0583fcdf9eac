// Ctrl-C and SIGTERM: the first stops taking batches, the second abandons those in flight.

export interface SignalWatch {
  /** Aborted by the first signal: no new batches. */
  stop: AbortSignal;
  /** Aborted by the second: requests in flight are abandoned. */
  abort: AbortSignal;
  dispose(): void;
}

export function watchSignals(on: { first(): void; second(): void }): SignalWatch {
  const stop = new AbortController();
  const abort = new AbortController();
  const handler = () => {
    if (!stop.signal.aborted) {
      stop.abort();
      on.first();
    } else if (!abort.signal.aborted) {
      abort.abort();
      on.second();
    }
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  return {
    stop: stop.signal,
    abort: abort.signal,
    dispose() {
      process.off('SIGINT', handler);
      process.off('SIGTERM', handler);
    },
  };
}
