// Renders the verdict of `report --fail-under` as a string: one line per gate, then the verdict.
import type { ChalkInstance } from 'chalk';
import { formatShare, type GatesVerdict } from '../../report/gates.js';
import { formatCount } from './format.js';

/** `✖ accepted 97.5% < 99% (39 of 40)`; the delivered share says what it is a share of. */
export function renderGates(verdict: GatesVerdict, c: ChalkInstance): string {
  const lines = verdict.gates.map((gate) => {
    const share = formatShare(gate.count, gate.of, gate.threshold);
    const whole = `${formatCount(gate.of)}${gate.name === 'delivered' ? ' accepted' : ''}`;
    const text = `${gate.name} ${share} ${gate.passed ? '≥' : '<'} ${gate.threshold}% (${formatCount(gate.count)} of ${whole})`;
    return gate.passed ? `${c.green('✔')} ${text}` : c.red(`✖ ${text}`);
  });
  const failed = verdict.gates.filter((g) => !g.passed).map((g) => g.name);
  lines.push(
    failed.length === 0
      ? c.green.bold('every --fail-under gate passed')
      : c.red.bold(`below --fail-under: ${failed.join(', ')}`),
  );
  return lines.join('\n');
}
