// Values a new user mistypes on the commands that serve (simulate, dlr, check): a clear line and
// exit 2, never an internal error with a stack.
import { describe, expect, it } from 'vitest';
import { runInProcess } from '../helpers/in-process.js';

describe('values out of range', () => {
  it.each([
    [['simulate', '--fault', 'unavailable=2'], '--fault unavailable=2: a probability is 0 to 1'],
    [
      ['simulate', '--fault', 'rejectMessage=1.5'],
      '--fault rejectMessage=1.5: a probability is 0 to 1',
    ],
    [['simulate', '--fault', 'latencyMs=-5'], '--fault latencyMs must be a number, 0 or more'],
    [
      ['simulate', '--fault', 'maxBatchSize=0.5'],
      '--fault maxBatchSize must be a positive integer',
    ],
    [['simulate', '--port', '80000'], '--port "80000": must be a port, 0 to 65535'],
    [['dlr', '--report', 'r.csv', '--port', '99999'], '--port "99999": must be a port, 0 to 65535'],
    [
      ['check', '--simulate', '--dlr-port', '70000'],
      '--dlr-port "70000": must be a port, 0 to 65535',
    ],
    [
      ['campaigns', 'shwo', 'x'],
      "unknown command 'shwo' for 'campaigns' (did you mean campaigns show?)",
    ],
    [
      ['dlr', 'aply', '--report', 'r.csv'],
      "unknown command 'aply' for 'dlr' (did you mean dlr apply?)",
    ],
  ])('sms-send %j: exit 2, %s', async (args, message) => {
    const run = await runInProcess(args);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(message);
    expect(run.stderr).not.toMatch(/unexpected error|RangeError|at \w+ \(/);
  });
});
