// answerOf: the HTTP facts the send loop and sms-send check act on, besides the verdict.
import { describe, expect, it } from 'vitest';
import type { Exchange } from '../../src/gateway/exchange.js';
import { answerOf } from '../../src/gateway/outcome.js';

const mask = (text: string) => text.replaceAll('hunter22', '***');

function response(status: number, body: unknown): Exchange {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  return { kind: 'response', status, headers: {}, body: text, latencyMs: 9 };
}

describe('answerOf', () => {
  it('results: HTTP status, ProcessResult true, not throttled, nothing else', () => {
    const answer = answerOf(
      response(200, { ProcessResult: true, ProcessResultDescription: 'ok', Messages: [] }),
      [],
      0,
      mask,
    );
    expect(answer).toEqual({
      verdict: { kind: 'results', results: [] },
      status: 'HTTP 200',
      httpStatus: 200,
      latencyMs: 9,
      throttled: false,
      processResult: true,
    });
  });

  it('a refusal: ProcessResult false and its description, masked', () => {
    const answer = answerOf(
      response(200, { ProcessResult: false, ProcessResultDescription: 'bad hunter22' }),
      ['m'],
      0,
      mask,
    );
    expect(answer).toEqual({
      verdict: {
        kind: 'failed',
        reason: 'gateway refused the request: bad ***',
        authRefused: false,
      },
      status: 'HTTP 200',
      httpStatus: 200,
      latencyMs: 9,
      throttled: false,
      processResult: false,
      processResultDescription: 'bad ***',
    });
  });

  it('429 is throttled; a body of the wrong types gives no ProcessResult facts', () => {
    const answer = answerOf(
      response(429, { ProcessResult: 'yes', ProcessResultDescription: 5 }),
      ['m'],
      0,
      mask,
    );
    expect(answer).toEqual({
      verdict: { kind: 'retry', reason: 'HTTP 429', retryAfterMs: undefined },
      status: 'HTTP 429',
      httpStatus: 429,
      latencyMs: 9,
      throttled: true,
    });
  });

  it('503 is not throttled; a body that is not JSON gives no facts', () => {
    const answer = answerOf(response(503, 'down hunter22'), ['m'], 0, mask);
    expect(answer).toEqual({
      verdict: { kind: 'retry', reason: 'HTTP 503', retryAfterMs: undefined },
      status: 'HTTP 503',
      httpStatus: 503,
      latencyMs: 9,
      throttled: false,
    });
  });

  it('a network error: its code as the status, no HTTP status, never throttled', () => {
    const answer = answerOf(
      { kind: 'error', code: 'ECONNREFUSED', message: 'x', latencyMs: 3, requestSent: false },
      ['m'],
      0,
      mask,
    );
    expect(answer.status).toBe('ECONNREFUSED');
    expect(answer.throttled).toBe(false);
    expect(answer).not.toHaveProperty('httpStatus');
    expect(answer).not.toHaveProperty('processResult');
  });

  it('a ProcessResultDescription that is not text is left out, whatever the masking does with it', () => {
    const lenient = (text: unknown) => String(text).replaceAll('hunter22', '***');
    for (const description of [5, null, undefined, { text: 'x' }]) {
      const answer = answerOf(
        response(200, { ProcessResult: false, ProcessResultDescription: description }),
        ['m'],
        0,
        lenient,
      );
      expect(answer.processResult).toBe(false);
      expect(answer).not.toHaveProperty('processResultDescription');
    }
  });

  it('results with null fields: kept as null, whether or not another result is masked', () => {
    for (const description of ['Accepted', 'echo hunter22']) {
      const answer = answerOf(
        response(200, {
          ProcessResult: true,
          Messages: [
            { StatusCode: 0, StatusDescription: null, MessageId: 'a', TransactionId: null },
            { StatusCode: 0, StatusDescription: description, MessageId: 'b' },
          ],
        }),
        ['a', 'b'],
        0,
        mask,
      );
      expect(answer.verdict).toEqual({
        kind: 'results',
        results: [
          { outcome: 'accepted', statusCode: 0, statusDescription: null, transactionId: null },
          {
            outcome: 'accepted',
            statusCode: 0,
            statusDescription: description.replace('hunter22', '***'),
            transactionId: undefined,
          },
        ],
      });
    }
  });

  it('an ExtraInfo value that is a list is masked item by item and stays a list', () => {
    const answer = answerOf(
      response(200, {
        ProcessResult: true,
        Messages: [
          { StatusCode: 0, MessageId: 'a', ExtraInfo: { route: ['gw-1', 'hunter22', 7] } },
        ],
      }),
      ['a'],
      0,
      mask,
    );
    expect(answer.verdict.kind === 'results' && answer.verdict.results[0]!.extraInfo).toEqual({
      route: ['gw-1', '***', 7],
    });
  });
});
