// The connectivity check for CI: one RestSmsRequest with no messages (or one test message), sent
// again as a send's batch would be when the gateway surely did not process it (408, 429, 503, a
// connection refused before the request was written), honouring Retry-After.
import { backoffDelay } from '../shared/backoff.js';
import { systemClock, type Clock } from '../shared/clock.js';
import type { GatewayClient } from './client.js';
import type { Answer } from './outcome.js';

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
  /** Requests made: more than 1 when the gateway surely did not process the earlier ones. */
  attempts: number;
  /** Why each earlier request was sent again (`HTTP 503`, …), in order. */
  retried?: string[];
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

/**
 * How often, and how long at most, a check sends again what the gateway surely did not process:
 * the run's resolved settings satisfy it, read in place; a test brings its own clock and chance.
 */
export interface CheckRetries {
  /** Retries after the first request (`--retries`); 0 sends once. */
  retries: number;
  /** The request timeout: a Retry-After longer than it is not waited out. */
  timeoutMs: number;
  clock?: Clock;
  random?: () => number;
}

export async function checkGateway(
  client: GatewayClient,
  endpoint: string,
  test?: TestMessage,
  retry: CheckRetries = { retries: 0, timeoutMs: 0 },
): Promise<CheckResult> {
  // The client's answer is classified and already free of secrets: nothing to scrub here.
  const { answer, attempts, retried } = await postWithRetries(client, test, retry);
  const result = resultOf(answer, endpoint, client);
  result.attempts = attempts;
  if (retried.length > 0) result.retried = retried;
  return judge(result, answer, test);
}

/**
 * The check's request, sent again while the verdict says the gateway surely did not process it,
 * retries last, and the wait (Retry-After, else backoff) fits in the request timeout.
 */
async function postWithRetries(
  client: GatewayClient,
  test: TestMessage | undefined,
  retry: CheckRetries,
): Promise<{ answer: Answer; attempts: number; retried: string[] }> {
  const clock = retry.clock ?? systemClock;
  const retried: string[] = [];
  for (let attempt = 1; ; attempt++) {
    const answer = await client.post(test ? [test.json] : [], test ? [test.messageId] : []);
    const { verdict } = answer;
    if (verdict.kind !== 'retry' || attempt > retry.retries) {
      return { answer, attempts: attempt, retried };
    }
    const asked = verdict.retryAfterMs;
    // A backoff of our own is cut to the timeout; only a wait the gateway asked for ends the check.
    const delayMs =
      asked ?? Math.min(backoffDelay(attempt, undefined, retry.random), retry.timeoutMs);
    if (asked !== undefined && asked > retry.timeoutMs) {
      const why = `the gateway asked to wait ${Math.ceil(asked / 1000)} s (Retry-After), longer than --timeout`;
      return {
        answer: { ...answer, verdict: { ...verdict, reason: `${verdict.reason}; ${why}` } },
        attempts: attempt,
        retried,
      };
    }
    retried.push(verdict.reason);
    await clock.sleep(delayMs);
  }
}

function resultOf(answer: Answer, endpoint: string, client: GatewayClient): CheckResult {
  return {
    ok: false,
    endpoint,
    roundTripMs: Math.round(answer.latencyMs),
    tls: endpoint.startsWith('https:') ? client.tlsProtocol : 'none (plain http)',
    proxy: client.proxy ?? 'none',
    attempts: 1,
  };
}

/** The check's verdict from the last answer: passed, or why not. */
function judge(result: CheckResult, answer: Answer, test: TestMessage | undefined): CheckResult {
  const { verdict } = answer;
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
