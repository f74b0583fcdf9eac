// Ctrl-C and SIGTERM, counted: the first stops, the second abandons what is in flight, a third
// gives up whatever is still being finished (a delivery-report receiver's last fold).
import { afterEach, describe, expect, it } from 'vitest';
import { watchSignals, type SignalWatch } from '../../../src/cli/ui/signals.js';

let watch: SignalWatch | undefined;
afterEach(() => watch?.dispose());

describe('watchSignals', () => {
  it.each<[NodeJS.Signals]>([['SIGINT'], ['SIGTERM']])(
    '%s: the first stops, the second aborts, a third abandons; each said once',
    (signal) => {
      const said: string[] = [];
      watch = watchSignals({
        first: (s) => said.push(`first ${s}`),
        second: (s) => said.push(`second ${s}`),
      });
      const states = () => [watch!.stop.aborted, watch!.abort.aborted, watch!.abandon.aborted];
      expect(states()).toEqual([false, false, false]);
      process.emit(signal, signal);
      expect(states()).toEqual([true, false, false]);
      process.emit(signal, signal);
      expect(states()).toEqual([true, true, false]);
      process.emit(signal, signal);
      expect(states()).toEqual([true, true, true]);
      expect(said).toEqual([`first ${signal}`, `second ${signal}`]);
    },
  );

  it('listens no more once disposed', () => {
    watch = watchSignals({ first: () => undefined, second: () => undefined });
    const before = process.listenerCount('SIGINT');
    watch.dispose();
    expect(process.listenerCount('SIGINT')).toBe(before - 1);
  });
});
