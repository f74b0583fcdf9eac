// When colour is off before chalk looks at the stream: NO_COLOR (no-color.org), --no-color, FORCE_COLOR.
import { describe, expect, it } from 'vitest';
import { colorTurnedOff } from '../../../src/cli/ui/color.js';

describe('colorTurnedOff', () => {
  const argv = ['node', 'sms-send', 'c.csv'];
  it.each([
    ['nothing set', {}, argv, false],
    ['NO_COLOR=1', { NO_COLOR: '1' }, argv, true],
    ['NO_COLOR=0 (any non-empty value)', { NO_COLOR: '0' }, argv, true],
    ['NO_COLOR empty', { NO_COLOR: '' }, argv, false],
    ['NO_COLOR with FORCE_COLOR=1', { NO_COLOR: '1', FORCE_COLOR: '1' }, argv, false],
    ['--no-color', {}, [...argv, '--no-color'], true],
    ['--no-color over FORCE_COLOR', { FORCE_COLOR: '1' }, [...argv, '--no-color'], true],
    ['--no-color after --', {}, [...argv, '--', '--no-color'], false],
  ])('%s', (_name, env, args, expected) => {
    expect(colorTurnedOff(env, args)).toBe(expected);
  });
});
