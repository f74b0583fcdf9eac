// One chalk instance per stream, honouring NO_COLOR, FORCE_COLOR and --no-color through chalk's detection.
import { chalkStderr, type ChalkInstance } from 'chalk';
import chalk from 'chalk';

export function colorFor(stream: 'stdout' | 'stderr'): ChalkInstance {
  return stream === 'stdout' ? chalk : chalkStderr;
}
