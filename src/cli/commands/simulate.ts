// `sms-send simulate`: runs the simulator in the foreground until Ctrl-C.
import { ExitCode, UsageError } from '../../shared/errors.js';
import type { DeliveryReportOptions, FaultOptions, TransactionIds } from '../../simulator/index.js';
import { PROBABILITIES, validateFaults } from '../../simulator/faults.js';
import { colorFor } from '../ui/color.js';
import { renderSimulatorBanner, renderSimulatorStopped } from '../ui/simulate.js';
import { samplePath } from '../sample.js';

export interface SimulateFlags {
  port?: number;
  host?: string;
  seed?: number;
  transactionIds?: TransactionIds;
  credentials?: string;
  fault?: Record<string, string>;
  dlr?: boolean;
  dlrDelay?: number;
  dlrMix?: string;
  ledger?: string;
}

/** Default delay of the simulator's delivery reports when `--dlr` is on. */
const DLR_DELAY_MS = 1000;

export async function runSimulate(flags: SimulateFlags, program: string): Promise<ExitCode> {
  const { startSimulator } = await import('../../simulator/index.js');
  const c = colorFor('stderr');
  let credentials: { username: string; password: string } | undefined;
  if (flags.credentials !== undefined) {
    const at = flags.credentials.indexOf(':');
    if (at <= 0) throw new UsageError('--credentials must be user:password');
    credentials = {
      username: flags.credentials.slice(0, at),
      password: flags.credentials.slice(at + 1),
    };
  }
  const deliveryReports = deliveryReportsOf(flags);
  const faults = parseFaults(flags.fault ?? {});
  const simulator = await startSimulator({
    port: flags.port ?? 8099,
    host: flags.host ?? '127.0.0.1',
    seed: flags.seed,
    ...(flags.transactionIds === undefined ? {} : { transactionIds: flags.transactionIds }),
    credentials,
    faults,
    deliveryReports,
    // A long session or a benchmark must not grow without bound; the count is kept regardless.
    ledgerLimit: 10_000,
    // What is sent here is a rehearsal: the same content sent for real later is not refused.
    rehearsal: true,
    ...(flags.ledger === undefined ? {} : { ledgerFile: flags.ledger }),
  }).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'EADDRINUSE') {
      throw new UsageError(`port ${flags.port ?? 8099} is in use; pick another with --port`);
    }
    throw error;
  });
  process.stderr.write(
    `${renderSimulatorBanner({ url: simulator.url, sample: samplePath(), credentials, faults, deliveryReports, program }, c)}\n`,
  );
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  await simulator.stop();
  process.stderr.write(`${renderSimulatorStopped(simulator.stats(), flags.ledger)}\n`);
  return ExitCode.ok;
}

/** `--dlr`, or `--dlr-delay`/`--dlr-mix` (which imply it), turns delivery reports on. */
export function deliveryReportsOf(flags: SimulateFlags): DeliveryReportOptions | undefined {
  if (!flags.dlr && flags.dlrDelay === undefined && flags.dlrMix === undefined) return undefined;
  return {
    delayMs: flags.dlrDelay ?? DLR_DELAY_MS,
    // Like the ledger: a long session must not grow without bound.
    recordLimit: 10_000,
    ...(flags.dlrMix === undefined ? {} : { statusMix: parseStatusMix(flags.dlrMix) }),
  };
}

/** `delivered=0.9,undeliverable=0.05,expired=0.05`: statuses and weights (normalised; need not add up to 1). */
export function parseStatusMix(raw: string): Record<string, number> {
  const mix: Record<string, number> = {};
  for (const part of raw.split(',')) {
    const at = part.indexOf('=');
    const status = part.slice(0, at).trim();
    const value = part.slice(at + 1).trim();
    const weight = Number(value);
    if (at <= 0 || status === '' || !/^[\w.:-]+$/.test(status)) {
      throw new UsageError(`--dlr-mix: "${part}" must be status=weight, e.g. delivered=0.9`);
    }
    if (value === '' || !Number.isFinite(weight) || weight < 0) {
      throw new UsageError(`--dlr-mix: the weight of ${status} must be a number, 0 or more`);
    }
    if (status in mix) throw new UsageError(`--dlr-mix: ${status} is given twice`);
    mix[status] = weight;
  }
  if (!(Object.values(mix).reduce((a, b) => a + b, 0) > 0)) {
    throw new UsageError('--dlr-mix: the weights add up to 0');
  }
  return mix;
}

// The probabilities, and the faults that are numbers of another kind.
const NUMERIC_FAULTS = new Set<string>([
  ...PROBABILITIES,
  'latencyMs',
  'latencyJitterMs',
  'retryAfterSeconds',
  'maxBatchSize',
]);

export function parseFaults(raw: Record<string, string>): FaultOptions {
  const faults: Record<string, number> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (name === 'authStatus') {
      if (!['200', '401', '403'].includes(value))
        throw new UsageError('--fault authStatus must be 200, 401 or 403');
      faults[name] = Number(value);
      continue;
    }
    if (!NUMERIC_FAULTS.has(name)) {
      throw new UsageError(
        `unknown fault "${name}"; known: ${[...NUMERIC_FAULTS, 'authStatus'].join(', ')}`,
      );
    }
    const n = Number(value);
    if (value.trim() === '' || !Number.isFinite(n) || n < 0) {
      throw new UsageError(`--fault ${name} must be a number, 0 or more`);
    }
    if ((PROBABILITIES as readonly string[]).includes(name) && n > 1) {
      throw new UsageError(
        `--fault ${name}=${value}: a probability is 0 to 1 (0.2 is one in five)`,
      );
    }
    faults[name] = n;
  }
  // What is left to the simulator's own checks (whole numbers where it wants them) is said here too.
  try {
    return validateFaults(faults);
  } catch (error) {
    if (error instanceof RangeError) throw new UsageError(`--${error.message}`);
    throw error;
  }
}
