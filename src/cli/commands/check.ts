// `sms-send check`: is the gateway reachable and are the credentials good? Sends nothing by default;
// with --to sends one test message, and with --await-dlr waits for its delivery report (the canary).
// The check itself is campaign/check.ts (the programmatic API runs it too); here: flags and output.
import { parseDuration } from '../../shared/duration.js';
import type { ExitCode } from '../../shared/errors.js';
import { UsageError } from '../../shared/errors.js';
import { checkEnding, checkTarget, type CanaryListener } from '../../campaign/check.js';
import type { CanaryResult } from '../../dlr/canary.js';
import { gatewayAccess } from '../../campaign/target.js';
import { settingsFor, type GatewayFlags } from '../gateway-settings.js';
import { colorFor } from '../ui/color.js';
import {
  renderCanaryAccepted,
  renderCanaryEnd,
  renderCanaryInterim,
  renderCanaryStart,
  renderCheck,
  renderCheckWaiting,
} from '../ui/check.js';
import { startLiveLine } from '../ui/spinner.js';
import { parseStatusMix } from './simulate.js';

export interface CheckFlags extends GatewayFlags {
  to?: string;
  text?: string;
  json?: boolean;
  awaitDlr?: string;
  dlrPublicUrl?: string;
  dlrPort?: number;
  dlrMix?: string;
}

export async function runCheck(flags: CheckFlags): Promise<ExitCode> {
  if (flags.text !== undefined && flags.to === undefined) {
    throw new UsageError('--text needs --to: without a recipient, check sends no message');
  }
  const awaitMs = canaryOptions(flags);
  const settings = await settingsFor(flags);
  const access = gatewayAccess(settings, flags);
  const c = colorFor('stdout');
  // At a terminal, what the check waits for while nothing else is said (a spinner on stderr,
  // gone once there is more to say); --json keeps to its one document.
  const waiting = flags.json
    ? undefined
    : startLiveLine(renderCheckWaiting(access.endpoint ?? access.label, settings.timeoutMs));
  const say = (line: string) => {
    waiting?.stop();
    if (!flags.json) process.stdout.write(`${line}\n`);
  };
  const listener: CanaryListener = {
    start: (at) => say(renderCanaryStart(at, c)),
    accepted: (accepted, ms) => say(renderCanaryAccepted(accepted, ms, awaitMs!, c)),
    interim: (status, ms) => say(renderCanaryInterim(status, ms, c)),
  };
  const result = await checkTarget(
    settings,
    access,
    flags,
    {
      to: flags.to,
      text: flags.text,
      awaitMs,
      dlrPublicUrl: flags.dlrPublicUrl,
      dlrPort: flags.dlrPort,
      dlrMix: flags.dlrMix === undefined ? undefined : parseStatusMix(flags.dlrMix),
    },
    listener,
  ).finally(() => waiting?.stop());
  return finish(result, flags);
}

/** Prints the result and returns its exit code; a failed check throws (exit 3) with its document. */
function finish(result: CanaryResult, flags: CheckFlags): ExitCode {
  const { document, error, exitCode } = checkEnding(result);
  if (!flags.json) {
    // The canary's waiting lines were printed as they came; it ends with its verdict.
    const out = colorFor('stdout');
    const text = result.delivery ? renderCanaryEnd(result, out) : renderCheck(result, out);
    process.stdout.write(`${text}\n`);
  } else if (!error) {
    process.stdout.write(`${JSON.stringify(document)}\n`);
  }
  if (error) throw error;
  return exitCode;
}

/** --await-dlr in ms, or undefined; the canary's flags without it (or without --to) are refused. */
function canaryOptions(flags: CheckFlags): number | undefined {
  if (flags.awaitDlr === undefined) {
    const stray = (
      [
        ['--dlr-public-url', flags.dlrPublicUrl],
        ['--dlr-port', flags.dlrPort],
        ['--dlr-mix', flags.dlrMix],
      ] as const
    ).find(([, value]) => value !== undefined);
    if (stray) throw new UsageError(`${stray[0]} needs --await-dlr (and --to)`);
    return undefined;
  }
  const ms = parseDuration(flags.awaitDlr);
  if (ms === undefined || ms <= 0) {
    throw new UsageError(`--await-dlr "${flags.awaitDlr}": must be a duration such as 60s or 2m`);
  }
  if (flags.to === undefined) {
    throw new UsageError('--await-dlr needs --to: the canary sends one real test message');
  }
  if (flags.dlrMix !== undefined && !flags.simulate) {
    throw new UsageError('--dlr-mix needs --simulate: it sets what the built-in simulator reports');
  }
  return ms;
}
