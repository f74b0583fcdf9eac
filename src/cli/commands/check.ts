// `sms-send check`: is the gateway reachable and are the credentials good? Sends nothing by default.
import { ExitCode, GatewayUnusableError, UsageError } from '../../errors.js';
import { checkGateway, type CheckResult, type TestMessage } from '../../gateway/check.js';
import { buildMessage } from '../../message/build.js';
import { planColumns } from '../../message/columns.js';
import { gatewayTarget, openGateway, settingsFor, type GatewayFlags } from '../gateway-settings.js';
import { colorFor } from '../ui/color.js';
import { renderCheck } from '../ui/check.js';

export interface CheckFlags extends GatewayFlags {
  to?: string;
  text?: string;
  json?: boolean;
}

export async function runCheck(flags: CheckFlags): Promise<ExitCode> {
  if (flags.text !== undefined && flags.to === undefined) {
    throw new UsageError('--text needs --to: without a recipient, check sends no message');
  }
  const settings = await settingsFor(flags);
  const target = gatewayTarget(settings, flags);
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

function testMessage(
  flags: CheckFlags,
  settings: Awaited<ReturnType<typeof settingsFor>>,
): TestMessage {
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
