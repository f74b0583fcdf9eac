// The shared live line: no spinner on a zero-column pseudo-terminal, for `send` and `dlr` alike.
import { join } from 'node:path';
import { Chalk } from 'chalk';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { showReceiverProgress } from '../../../src/cli/ui/dlr.js';
import {
  canSpin,
  loadSpinner,
  startLiveLine,
  type StatusStream,
} from '../../../src/cli/ui/spinner.js';
import { DlrReceiver } from '../../../src/dlr/receiver.js';
import { tempDir } from '../../helpers/files.js';

// The fake terminals here are not stderr, which is what ora is loaded for at start.
beforeAll(() => loadSpinner());

function fakeStream(isTTY: boolean, columns: number | undefined): StatusStream & { out: string } {
  return {
    isTTY,
    columns,
    out: '',
    write(text: string) {
      this.out += text;
      return true;
    },
  };
}

describe('canSpin', () => {
  afterEach(() => void vi.unstubAllEnvs());

  it.each([
    [true, 80, {}, true],
    [true, 0, {}, false],
    [true, undefined, {}, false],
    [false, 80, {}, false],
    // Where ora would not draw a spinner (is-interactive), the plain lines must move instead.
    [true, 80, { CI: 'true' }, false],
    [true, 80, { CI: '' }, false],
    [true, 80, { TERM: 'dumb' }, false],
  ])('isTTY %s, columns %s, environment %j → %s', (isTTY, columns, env, expected) => {
    vi.stubEnv('CI', undefined);
    vi.stubEnv('TERM', 'xterm-256color');
    for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
    expect(canSpin(fakeStream(isTTY, columns))).toBe(expected);
  });
});

describe('startLiveLine', () => {
  it('on a zero-column terminal draws nothing and prints notes as plain lines', () => {
    const stream = fakeStream(true, 0);
    const live = startLiveLine('sending 0 / 3', stream);
    expect(live.spinning).toBe(false);
    live.update('sending 1 / 3');
    live.say('batch 1: 3 messages, 200, 5 ms, 1 attempt');
    live.stop('sending 3 / 3');
    expect(stream.out).toBe('batch 1: 3 messages, 200, 5 ms, 1 attempt\n');
  });
});

describe('showReceiverProgress', () => {
  const cleanups: Array<() => Promise<unknown>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it('does not spin on a zero-column terminal (it used to redraw forever there)', async () => {
    const dir = await tempDir();
    cleanups.push(() => dir.remove());
    const receiver = await DlrReceiver.start({
      reportPath: join(dir.path, 'campaign.report.csv'),
      logPath: join(dir.path, 'dlr.ndjson'),
      updateIntervalMs: 60_000,
    });
    cleanups.push(() => receiver.stop());
    const stream = fakeStream(true, 0);
    const progress = showReceiverProgress(
      receiver,
      { verbose: true },
      new Chalk({ level: 0 }),
      stream,
    );
    receiver.emit('report', {
      messageId: 'm1',
      status: 'DELIVRD',
      timestamp: undefined,
      transactionId: undefined,
      receivedAt: '2025-06-01T12:00:00Z',
    });
    progress.stop();
    expect(stream.out).toBe('DELIVRD  m1\n');
  });
});
