// Ctrl-C and SIGTERM: the first stops taking batches, the second abandons those in flight; and
// what the operator is told of each.

export interface SignalWatch {
  /** Aborted by the first signal: no new batches. */
  stop: AbortSignal;
  /** Aborted by the second: requests in flight are abandoned. */
  abort: AbortSignal;
  /** Aborted by a third: whatever is still being finished is given up. */
  abandon: AbortSignal;
  dispose(): void;
}

export function watchSignals(on: {
  first(signal: NodeJS.Signals): void;
  second(signal: NodeJS.Signals): void;
}): SignalWatch {
  const stop = new AbortController();
  const abort = new AbortController();
  const abandon = new AbortController();
  const handler = (signal: NodeJS.Signals) => {
    if (!stop.signal.aborted) {
      stop.abort();
      on.first(signal);
    } else if (!abort.signal.aborted) {
      abort.abort();
      on.second(signal);
    } else abandon.abort();
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  return {
    stop: stop.signal,
    abort: abort.signal,
    abandon: abandon.signal,
    dispose() {
      process.off('SIGINT', handler);
      process.off('SIGTERM', handler);
    },
  };
}

/** What the run is doing when the first signal comes. */
export interface StopMoment {
  signal: NodeJS.Signals;
  /** Waiting for the send window to open: nothing has been sent, nothing is in flight. */
  waitingForWindow: boolean;
}

/**
 * The note on the first signal. Only a person at a terminal presses Ctrl-C; a service manager
 * sends SIGTERM, and is told what a second one does.
 */
export function renderStopping(moment: StopMoment): string {
  if (moment.waitingForWindow) {
    return 'stopping: the send window had not opened, so nothing was sent';
  }
  const again =
    moment.signal === 'SIGINT'
      ? 'press Ctrl-C again to abandon them'
      : `a second ${moment.signal} abandons them`;
  return `stopping: finishing the batches in flight (${again})`;
}
