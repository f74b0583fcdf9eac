// Renders the simulator's banner: where it listens, a send command that works as printed, what is on.
import type { ChalkInstance } from 'chalk';
import type { DeliveryReportOptions, FaultOptions, LedgerStats } from '../../simulator/index.js';
import { shellWord } from '../../shared/shell.js';
import { formatCount, plural } from './format.js';

export interface SimulatorBanner {
  url: string;
  /** The input the printed command sends: the packaged sample, as the user can reach it. */
  sample: string;
  /** Only these are accepted (`--credentials`); otherwise any non-empty pair. */
  credentials?: { username: string; password: string };
  faults: FaultOptions;
  deliveryReports?: DeliveryReportOptions;
  /** How the user runs sms-send (`sms-send`, `npx sms-send`): the command is printed so. */
  program: string;
}

export function renderSimulatorBanner(banner: SimulatorBanner, c: ChalkInstance): string {
  const { username, password } = banner.credentials ?? { username: 'demo', password: 'demo' };
  // A report of its own, beside none of the quick start's. Pasted again, it sends again: a
  // campaign sent to the simulator is a rehearsal, set aside when the same line runs once more.
  const command = [
    `SMS_SEND_USERNAME=${shellWord(username)}`,
    `SMS_SEND_PASSWORD=${shellWord(password)}`,
    banner.program,
    shellWord(banner.sample),
    '--endpoint',
    shellWord(banner.url),
    '--report',
    'simulated.report.csv',
  ].join(' ');
  return [
    `${c.green('simulator listening')} on ${banner.url}`,
    `  send to it:       ${command}`,
    `  credentials:      ${banner.credentials ? 'only the pair given with --credentials' : 'any non-empty username and password'}`,
    `  faults:           ${describeFaults(banner.faults)}`,
    `  delivery reports: ${describeDeliveryReports(banner.deliveryReports)}`,
    '  Ctrl-C stops it.',
  ].join('\n');
}

/** The stop line: what was accepted, and with a ledger file how many MessageIds came twice. */
export function renderSimulatorStopped(stats: LedgerStats, ledger?: string): string {
  const line = `simulator stopped after accepting ${plural(stats.accepted, 'message')}`;
  if (stats.distinct === undefined) return line;
  return (
    `${line}: ${plural(stats.distinct, 'MessageId')}, ` +
    `${plural(stats.duplicates ?? 0, 'accepted twice', 'accepted twice')} (ledger ${ledger ?? ''})`
  );
}

function describeFaults(faults: FaultOptions): string {
  const on = Object.entries(faults).filter(([, value]) => value !== undefined && value !== 0);
  if (on.length === 0) return 'none (--fault name=value turns one on)';
  // As --fault takes them, so a line can be pasted back into a command.
  return on.map(([name, value]) => `${name}=${String(value)}`).join(', ');
}

function describeDeliveryReports(options: DeliveryReportOptions | undefined): string {
  if (!options) return 'off (--dlr turns them on)';
  const mix = options.statusMix ?? { DELIVRD: 1 };
  const total = Object.values(mix).reduce((a, b) => a + b, 0);
  const shares = Object.entries(mix)
    .map(([status, weight]) => `${status} ${Math.round((weight / total) * 1000) / 10}%`)
    .join(', ');
  return `${shares}, ${formatCount(options.delayMs ?? 0)} ms after acceptance`;
}
