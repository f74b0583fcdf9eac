// The connectivity check for CI: one RestSmsRequest with no messages (or one test message).
import type { GatewayClient } from './client.js';
import { classify } from './outcome.js';
import type { RestSmsResponse } from './types.js';

export interface CheckResult {
  ok: boolean;
  endpoint: string;
  httpStatus?: number;
  processResult?: boolean;
  processResultDescription?: string;
  roundTripMs: number;
  tls?: string;
  /** Why the check failed, when it did. */
  reason?: string;
  /** The test message's result, with --to. */
  message?: {
    to: string;
    messageId: string;
    statusCode?: number;
    statusDescription?: string;
    transactionId?: string;
  };
}

export interface TestMessage {
  to: string;
  messageId: string;
  json: string;
}

export async function checkGateway(
  client: GatewayClient,
  endpoint: string,
  test?: TestMessage,
): Promise<CheckResult> {
  const exchange = await client.post(test ? [test.json] : []);
  const result: CheckResult = {
    ok: false,
    endpoint,
    roundTripMs: Math.round(exchange.latencyMs),
    tls: endpoint.startsWith('https:') ? client.tlsProtocol : 'none (plain http)',
  };
  if (exchange.kind === 'error') {
    result.reason = `no answer: ${exchange.code}: ${exchange.message}`;
    return result;
  }
  result.httpStatus = exchange.status;
  const verdict = classify(exchange, test ? [test.messageId] : [], Date.now(), (text) =>
    client.redact(text),
  );
  try {
    const body = JSON.parse(exchange.body) as Partial<RestSmsResponse>;
    if (typeof body.ProcessResult === 'boolean') result.processResult = body.ProcessResult;
    if (typeof body.ProcessResultDescription === 'string') {
      result.processResultDescription = client.redact(body.ProcessResultDescription);
    }
  } catch {
    // The verdict below says the body was malformed.
  }
  if (verdict.kind !== 'results') {
    result.reason = client.redact(verdict.reason);
    return result;
  }
  if (test) {
    const message = verdict.results[0];
    const clean = (text: string | undefined) =>
      text === undefined ? undefined : client.redact(text);
    result.message = {
      to: test.to,
      messageId: test.messageId,
      statusCode: message?.statusCode,
      statusDescription: clean(message?.statusDescription),
      transactionId: clean(message?.transactionId),
    };
    if (message?.outcome !== 'accepted') {
      result.reason = client.redact(
        `the test message was not accepted: ${message?.statusDescription ?? message?.error ?? 'no result'}`,
      );
      return result;
    }
  }
  result.ok = true;
  return result;
}
