// One chalk instance per stream: chalk's detection, plus NO_COLOR (which chalk 5 does not read).
import chalk, { Chalk, chalkStderr, type ChalkInstance } from 'chalk';

const noColor = new Chalk({ level: 0 });

/**
 * Whether colour is turned off by the user, before chalk looks at the stream: `--no-color` on the
 * command line (also over FORCE_COLOR: a flag the user typed wins), or `NO_COLOR` present and not
 * empty (no-color.org) unless FORCE_COLOR asks for colour (Node's own rule).
 */
export function colorTurnedOff(
  env: NodeJS.ProcessEnv = process.env,
  argv: readonly string[] = process.argv,
): boolean {
  const end = argv.indexOf('--');
  const flags = end === -1 ? argv : argv.slice(0, end);
  if (flags.includes('--no-color')) return true;
  if (env.FORCE_COLOR !== undefined) return false;
  return (env.NO_COLOR ?? '') !== '';
}

export function colorFor(stream: 'stdout' | 'stderr'): ChalkInstance {
  if (colorTurnedOff()) return noColor;
  return stream === 'stdout' ? chalk : chalkStderr;
}
