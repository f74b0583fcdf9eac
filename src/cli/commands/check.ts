// `sms-send check`: is the gateway reachable and are the credentials good? Sends nothing by default;
// with --to sends one test message, and with --await-dlr waits for its delivery report (the canary).
import { parseDuration } from '../../shared/duration.js';
import type { Settings } from '../../config/settings.js';
import type { CanaryResult } from '../../dlr/canary.js';
import type { DlrReceiver } from '../../dlr/receiver.js';
import { ExitCode, GatewayUnusableError, UsageError } from '../../shared/errors.js';
import { checkGateway, type CheckResult, type TestMessage } from '../../gateway/check.js';
import { buildMessage } from '../../message/build.js';
import { planColumns } from '../../message/columns.js';
import {
  gatewayTarget,
  isLoopbackUrl,
  openGateway,
  settingsFor,
  type GatewayFlags,
  type Target,
} from '../gateway-settings.js';
import { colorFor } from '../ui/color.js';
import {
  renderCanaryAccepted,
  renderCanaryEnd,
  renderCanaryInterim,
  renderCanaryStart,
  renderCheck,
} from '../ui/check.js';
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

/** How long after acceptance the simulator behind --simulate reports: quick, but after the answer. */
const SIMULATED_DLR_DELAY_MS = 100;

export async function runCheck(flags: CheckFlags): Promise<ExitCode> {
  if (flags.text !== undefined && flags.to === undefined) {
    throw new UsageError('--text needs --to: without a recipient, check sends no message');
  }
  const awaitMs = canaryOptions(flags);
  const settings = await settingsFor(flags);
  const target = gatewayTarget(settings, flags);
  if (awaitMs !== undefined) return runCanaryCheck(flags, settings, target, awaitMs);
  const test = flags.to === undefined ? undefined : testMessage(flags, settings);

  const gateway = await openGateway(target, flags, {
    connections: 1,
    timeoutMs: settings.timeoutMs,
  });
  let result: CheckResult;
  try {
    result = await checkGateway(gateway.client, gateway.label, test);
  } finally {
    await gateway.close();
  }
  return finish(result, flags);
}

/** Prints the result; a failed check is exit 3 (under --json the document says why). */
function finish(result: CheckResult, flags: CheckFlags): ExitCode {
  const document = { check: result };
  if (!result.ok) {
    // Under --json the result document says why; it is the only thing on stdout.
    if (!flags.json) process.stdout.write(`${renderCheck(result, colorFor('stdout'))}\n`);
    throw new GatewayUnusableError(
      `check failed: ${result.reason ?? 'unknown reason'}`,
      'check-failed',
      document,
    );
  }
  if (flags.json) process.stdout.write(`${JSON.stringify(document)}\n`);
  else process.stdout.write(`${renderCheck(result, colorFor('stdout'))}\n`);
  return ExitCode.ok;
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
  if (flags.dlrPort !== undefined && flags.dlrPort > 65535) {
    throw new UsageError(`--dlr-port ${flags.dlrPort}: a port is 0 to 65535`);
  }
  return ms;
}

/**
 * Where the gateway sends the test message's delivery report: --dlr-public-url, or the receiver
 * itself when the gateway is on this machine (--simulate, a loopback endpoint).
 */
function publicBase(flags: CheckFlags, target: Target, receiver: DlrReceiver): string {
  if (flags.dlrPublicUrl !== undefined) {
    let url: URL | undefined;
    try {
      url = new URL(flags.dlrPublicUrl);
    } catch {
      url = undefined;
    }
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.search || url.hash) {
      throw new UsageError(
        `--dlr-public-url "${flags.dlrPublicUrl}": must be an absolute http(s) URL with no ? or #, ` +
          'e.g. https://canary.example.com',
      );
    }
    return flags.dlrPublicUrl.replace(/\/+$/, '');
  }
  if (flags.simulate || (target.endpoint !== undefined && isLoopbackUrl(target.endpoint))) {
    return receiver.url;
  }
  throw new UsageError(
    `the gateway cannot reach a receiver on ${receiver.url}: pass --dlr-public-url with the address ` +
      `it can reach (a tunnel or a proxy to port ${receiver.port}, which --dlr-port fixes). Nothing was sent.`,
  );
}

async function runCanaryCheck(
  flags: CheckFlags,
  settings: Settings,
  target: Target,
  awaitMs: number,
): Promise<ExitCode> {
  const { DlrReceiver, urlTemplate } = await import('../../dlr/receiver.js');
  const { runCanary } = await import('../../dlr/canary.js');
  const port = flags.dlrPort ?? 0;
  const receiver = await DlrReceiver.start({ port }).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'EADDRINUSE') {
      throw new UsageError(`--dlr-port ${port} is in use; pick another`);
    }
    throw error;
  });
  const c = colorFor('stdout');
  const say = (line: string) => {
    if (!flags.json) process.stdout.write(`${line}\n`);
  };
  let result: CanaryResult;
  try {
    const base = publicBase(flags, target, receiver);
    const deliveryReportUrl = urlTemplate(base);
    const test = testMessage(flags, {
      ...settings,
      defaults: { ...settings.defaults, deliveryReportUrl },
    });
    const gateway = await openGateway(target, flags, {
      connections: 1,
      timeoutMs: settings.timeoutMs,
      deliveryReports: {
        delayMs: SIMULATED_DLR_DELAY_MS,
        ...(flags.dlrMix === undefined ? {} : { statusMix: parseStatusMix(flags.dlrMix) }),
      },
    });
    try {
      say(
        renderCanaryStart(
          { to: test.to, endpoint: gateway.label, receiver: receiver.url, reportsTo: base },
          c,
        ),
      );
      result = await runCanary({
        client: gateway.client,
        endpoint: gateway.label,
        test,
        deliveryReportUrl,
        receiver,
        awaitMs,
        onAccepted: (accepted, ms) => say(renderCanaryAccepted(accepted, ms, awaitMs, c)),
        onInterim: (status, ms) => say(renderCanaryInterim(status, ms, c)),
      });
    } finally {
      await gateway.close();
    }
  } finally {
    await receiver.stop();
  }
  // Refused or unreachable before any delivery could be awaited: as check without --await-dlr.
  if (result.delivery === undefined) return finish(result, flags);
  say(renderCanaryEnd(result, c));
  const document = { check: result };
  if (result.delivery.status === undefined) {
    throw new GatewayUnusableError(
      `check failed: ${result.reason ?? 'no delivery report'}`,
      'no-delivery-report',
      document,
    );
  }
  if (flags.json) process.stdout.write(`${JSON.stringify(document)}\n`);
  return result.ok ? ExitCode.ok : ExitCode.notAllAccepted;
}

function testMessage(flags: CheckFlags, settings: Settings): TestMessage {
  const text = flags.text ?? `sms-send check ${new Date().toISOString()}`;
  const fields = { to: flags.to!, text };
  const built = buildMessage(
    { row: 1, file: '--to', line: 1, fields },
    planColumns(['to', 'text'], {}, false),
    {
      defaults: settings.defaults,
      country: settings.country,
      campaignKey: 'check',
      now: new Date(),
    },
  );
  if (!built.ok) {
    const reasons = built.problems.map(
      (p) => `${p.field === 'to' ? '--to' : p.field}: ${p.reason}`,
    );
    throw new UsageError(`the test message cannot be sent: ${reasons.join('; ')}`);
  }
  // A fresh id per check, so a gateway that remembers ids never sees one twice.
  const messageId = `check-${Date.now().toString(36)}`;
  const message = { ...built.message, MessageId: messageId };
  return { to: built.to, messageId, json: JSON.stringify(message) };
}
