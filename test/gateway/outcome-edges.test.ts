// classify at its edges: the bounds of the status classes, and 200 answers of the wrong shape.
import { describe, expect, it } from 'vitest';
import type { Exchange } from '../../src/gateway/exchange.js';
import { classify } from '../../src/gateway/outcome.js';

const NOW = Date.parse('2025-06-01T12:00:00Z');
const SENT = ['m-1', 'm-2'];
const OK = { ProcessResult: true, Messages: [{ StatusCode: 0 }, { StatusCode: 0 }] };

function response(status: number, body: unknown = ''): Exchange {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  return { kind: 'response', status, headers: {}, body: text, latencyMs: 1 };
}

describe('classify: the bounds of success', () => {
  it.each([199, 300])('%d is not a success: failed, nothing retried', (status) => {
    expect(classify(response(status, OK), SENT, NOW)).toEqual({
      kind: 'failed',
      reason: `HTTP ${status}: ${JSON.stringify(OK)}`,
      authRefused: false,
    });
  });

  it.each([200, 299])('%d with a RestSmsResponse is a success', (status) => {
    expect(classify(response(status, OK), SENT, NOW)).toMatchObject({ kind: 'results' });
  });

  it.each([499, 500])('%d: failed below 500, unknown from 500', (status) => {
    expect(classify(response(status, 'x'), SENT, NOW).kind).toBe(
      status < 500 ? 'failed' : 'unknown',
    );
  });
});

describe('classify: a 200 answer whose Messages is not an array', () => {
  it.each([
    ['an object', { 0: { StatusCode: 0 }, 1: { StatusCode: 0 } }],
    ['a string', 'accepted'],
    ['a number', 2],
    ['null', null],
  ])('Messages as %s → unknown: nothing can be matched, and nothing retried', (_, messages) => {
    expect(classify(response(200, { ProcessResult: true, Messages: messages }), SENT, NOW)).toEqual(
      { kind: 'unknown', reason: 'response Messages is not an array' },
    );
  });

  it.each(['true', 'false', '0', '"ProcessResult"'])(
    'a JSON scalar %s → unknown, never results',
    (body) => {
      expect(classify(response(200, body), SENT, NOW)).toEqual({
        kind: 'unknown',
        reason: `response without ProcessResult: ${body}`,
      });
    },
  );
});

describe('classify: the excerpt of a body a failure quotes', () => {
  const reasonOf = (body: string) => {
    const verdict = classify(response(400, body), SENT, NOW);
    return verdict.kind === 'failed' ? verdict.reason : verdict.kind;
  };

  it('a body of exactly 200 characters is quoted whole; one of 201 is cut to 200 and …', () => {
    expect(reasonOf('a'.repeat(200))).toBe(`HTTP 400: ${'a'.repeat(200)}`);
    expect(reasonOf('a'.repeat(201))).toBe(`HTTP 400: ${'a'.repeat(200)}…`);
  });

  it('whitespace runs become one space, and the ends are trimmed', () => {
    expect(reasonOf('\n  bad\t\r\n request \n')).toBe('HTTP 400: bad request');
  });

  it('a body of whitespace only is an empty body', () => {
    expect(reasonOf(' \n\t ')).toBe('HTTP 400: (empty body)');
    expect(reasonOf('')).toBe('HTTP 400: (empty body)');
  });
});
