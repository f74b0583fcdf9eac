// The connectivity check for CI: one RestSmsRequest with no messages (or one test message).
import type { GatewayClient } from './client.js';

export interface CheckResult {
  ok: boolean;
  endpoint: string;
  httpStatus?: number;
  processResult?: boolean;
  processResultDescription?: string;
  roundTripMs: number;
  tls?: string;
  /** The proxy the check went through (its password masked), or `none`. */
  proxy: string;
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
  // The client's answer is classified and already free of secrets: nothing to scrub here.
  const answer = await client.post(test ? [test.json] : [], test ? [test.messageId] : []);
  const { verdict } = answer;
  const result: CheckResult = {
    ok: false,
    endpoint,
    roundTripMs: Math.round(answer.latencyMs),
    tls: endpoint.startsWith('https:') ? client.tlsProtocol : 'none (plain http)',
    proxy: client.proxy ?? 'none',
  };
  if (answer.httpStatus === undefined) {
    const reason = verdict.kind === 'results' ? answer.status : verdict.reason;
    result.reason = reason.startsWith('no answer') ? reason : `no answer: ${reason}`;
    return result;
  }
  result.httpStatus = answer.httpStatus;
  if (answer.processResult !== undefined) result.processResult = answer.processResult;
  if (answer.processResultDescription !== undefined) {
    result.processResultDescription = answer.processResultDescription;
  }
  if (verdict.kind !== 'results') {
    result.reason = verdict.reason;
    return result;
  }
  if (test) {
    const message = verdict.results[0];
    result.message = {
      to: test.to,
      messageId: test.messageId,
      statusCode: message?.statusCode,
      statusDescription: message?.statusDescription,
      transactionId: message?.transactionId,
    };
    if (message?.outcome !== 'accepted') {
      result.reason = `the test message was not accepted: ${message?.statusDescription ?? message?.error ?? 'no result'}`;
      return result;
    }
  }
  result.ok = true;
  return result;
}
