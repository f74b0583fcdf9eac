// classify: one HTTP exchange → per-message results, or retry / failed / unknown for the whole batch.
import { describe, expect, it } from 'vitest';
import type { Exchange } from '../../src/gateway/exchange.js';
import { plainWords } from '../../src/gateway/words.js';
import { classify, matchResults, parseRetryAfter } from '../../src/gateway/outcome.js';
import type { RestSmsMessageResp } from '../../src/gateway/types.js';

const NOW = Date.parse('2025-06-01T12:00:00Z');

/** classify() and matchResults() see the MessageIds of the request's items ('' when none). */
function req(id?: string): string {
  return id ?? '';
}

function resp(id: string, code = 0, extra?: Record<string, string>): RestSmsMessageResp {
  const r: RestSmsMessageResp = {
    StatusCode: code,
    StatusDescription: code === 0 ? 'OK' : `Error ${code}`,
    MessageId: id,
    TransactionId: `T-${id}`,
  };
  if (extra) r.ExtraInfo = extra;
  return r;
}

function response(
  status: number,
  body: unknown = '',
  headers: Record<string, string> = {},
): Exchange {
  return {
    kind: 'response',
    status,
    headers,
    body: typeof body === 'string' ? body : JSON.stringify(body),
    latencyMs: 12,
  };
}

function networkError(
  code: string,
  message = `${code} happened`,
  requestSent = true,
): Extract<Exchange, { kind: 'error' }> {
  return { kind: 'error', code, message, latencyMs: 5, requestSent };
}

const SENT = [req('m-1'), req('m-2')];

describe('classify: a certificate the TLS handshake refused', () => {
  const refused = (code: string): Exchange => ({
    ...networkError(code, `${code} happened`, false),
    host: 'smsgw.example:443',
  });
  it.each([
    [
      'DEPTH_ZERO_SELF_SIGNED_CERT',
      "the gateway's TLS certificate is self-signed (not trusted)",
      true,
    ],
    [
      'SELF_SIGNED_CERT_IN_CHAIN',
      "the gateway's TLS certificate chain is self-signed (not trusted)",
      true,
    ],
    [
      'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
      "the gateway's TLS certificate cannot be verified (not trusted)",
      true,
    ],
    [
      'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
      "the gateway's TLS certificate is signed by a CA this machine does not trust",
      true,
    ],
    ['CERT_HAS_EXPIRED', "the gateway's TLS certificate has expired", false],
  ])(
    '%s: nothing sent, and sending again changes nothing: the run stops, naming the host',
    (code, words, ca) => {
      const verdict = classify(refused(code), ['m']);
      const fix =
        ': if a private CA signs it, name that CA with --ca-file (caFile, SMS_SEND_CA_FILE) or NODE_EXTRA_CA_CERTS';
      expect(verdict).toEqual({
        kind: 'failed',
        reason: `${words} (smsgw.example:443)${ca ? fix : ''}`,
        authRefused: false,
        stop: true,
      });
    },
  );
});

describe('classify: a certificate for another host name', () => {
  const FIX =
    "; give --endpoint by a name the certificate carries, or have the gateway's certificate name this host";
  // Node's three wordings (tls.checkServerIdentity): a host name, an IP address (which lists only
  // the IP addresses the certificate carries), no altnames; and the names the client read from the
  // certificate itself, which come first.
  it.each([
    [
      "Hostname/IP does not match certificate's altnames: Host: localhost. is not in the cert's altnames: DNS:other.example, DNS:www.other.example",
      undefined,
      ': it is for DNS:other.example, DNS:www.other.example',
    ],
    [
      "Hostname/IP does not match certificate's altnames: IP: 127.0.0.1 is not in the cert's list: IP Address:10.0.0.1",
      undefined,
      ': it is for IP Address:10.0.0.1',
    ],
    [
      "Hostname/IP does not match certificate's altnames: IP: 127.0.0.1 is not in the cert's list: ",
      'DNS:other.example',
      ': it is for DNS:other.example',
    ],
    [
      "Hostname/IP does not match certificate's altnames: Host: localhost. is not cert's CN: other.example",
      undefined,
      ': it is for other.example',
    ],
    [
      "Hostname/IP does not match certificate's altnames: IP: 127.0.0.1 is not in the cert's list: ",
      undefined,
      '',
    ],
    ['a message of another shape', undefined, ''],
  ])(
    '%s (read from the certificate: %s): names what it is for, and the fix',
    (message, certNames, names) => {
      const exchange: Exchange = {
        ...networkError('ERR_TLS_CERT_ALTNAME_INVALID', message, false),
        host: 'localhost:9444',
        ...(certNames === undefined ? {} : { certNames }),
      };
      expect(classify(exchange, ['m'])).toEqual({
        kind: 'failed',
        reason: `the gateway's TLS certificate is for another host name (localhost:9444)${names}${FIX}`,
        authRefused: false,
        stop: true,
      });
    },
  );
});

describe('classify: a proxy refuses', () => {
  const through = (code: string): Exchange => ({
    ...networkError(code, code, false),
    proxy: 'http://***@proxy:3128 (HTTPS_PROXY)',
  });
  it.each([
    [
      'http://***@proxy:3128 (HTTPS_PROXY)',
      'the proxy http://***@proxy:3128 (HTTPS_PROXY) refused the credentials in its URL (HTTP 407 Proxy Authentication Required): check the user name and password given in HTTPS_PROXY',
    ],
    [
      'http://proxy:3128 (HTTP_PROXY)',
      'the proxy http://proxy:3128 (HTTP_PROXY) wants credentials (HTTP 407 Proxy Authentication Required): give them in its URL, http://user:password@host:port, in HTTP_PROXY',
    ],
    [
      'http://proxy:3128 (proxy (/home/ann@corp/.sms-sendrc.json))',
      'the proxy http://proxy:3128 (proxy (/home/ann@corp/.sms-sendrc.json)) wants credentials (HTTP 407 Proxy Authentication Required): give them in its URL, http://user:password@host:port, in the proxy setting in /home/ann@corp/.sms-sendrc.json',
    ],
    [
      'http://proxy:3128 (proxy (/etc/sms-send.json))',
      'the proxy http://proxy:3128 (proxy (/etc/sms-send.json)) wants credentials (HTTP 407 Proxy Authentication Required): give them in its URL, http://user:password@host:port, in the proxy setting in /etc/sms-send.json',
    ],
  ])('407 through %s: the run stops, saying what to fix where', (proxy, reason) => {
    expect(classify({ ...networkError('PROXY_407', 'PROXY_407', false), proxy }, ['m'])).toEqual({
      kind: 'failed',
      stop: true,
      authRefused: false,
      reason,
    });
  });
  it.each(['PROXY_502', 'PROXY_503', 'PROXY_504'])(
    '%s: it could not reach the gateway; nothing sent, so retry',
    (code) => {
      expect(classify(through(code), ['m'])).toEqual({
        kind: 'retry',
        reason: `the proxy http://***@proxy:3128 (HTTPS_PROXY) could not reach the gateway (HTTP ${code.slice(6)})`,
      });
    },
  );
  it('403: it will not let the tunnel through; the run stops', () => {
    expect(classify(through('PROXY_403'), ['m'])).toMatchObject({ kind: 'failed', stop: true });
  });
  it('a refused connection through a proxy names the proxy', () => {
    expect(classify(through('ECONNREFUSED'), ['m'])).toEqual({
      kind: 'retry',
      reason: 'connection refused (through the proxy http://***@proxy:3128 (HTTPS_PROXY))',
      unreachable: true,
    });
  });
});

describe('classify: network errors', () => {
  it.each([
    'ECONNREFUSED',
    'ENOTFOUND',
    'EAI_AGAIN',
    'EHOSTUNREACH',
    'ENETUNREACH',
    'UND_ERR_CONNECT_TIMEOUT',
    'ERR_SSL_WRONG_VERSION_NUMBER',
  ])('%s: never connected, so retry, in plain words (the code is not in the reason)', (code) => {
    const verdict = classify(networkError(code, 'boom'), SENT, NOW);
    // Refused, or a name that does not resolve: the endpoint itself may be wrong, said at once.
    const unreachable = ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN'].includes(code);
    expect(verdict).toEqual({
      kind: 'retry',
      reason: plainWords(code, 'boom'),
      ...(unreachable ? { unreachable: true } : {}),
    });
    expect(verdict.kind === 'retry' && verdict.reason).not.toContain(code);
  });

  it.each(['ECONNREFUSED', 'UND_ERR_CONNECT_TIMEOUT'])(
    '%s is a retry even if the diagnostics claim the body was sent',
    (code) => {
      expect(classify(networkError(code, 'boom', true), SENT, NOW).kind).toBe('retry');
    },
  );

  it.each([
    ['ECONNRESET', 'connection reset before the request was sent'],
    ['EPIPE', 'connection broken before the request was sent'],
    ['ECONNABORTED', 'connection aborted before the request was sent'],
    ['UND_ERR_SOCKET', 'connection closed by the other side before the request was sent'],
    ['UND_ERR_CLOSED', 'connection closed before the request was sent'],
  ])('%s before the request was fully written: surely not processed, so retry', (code, reason) => {
    expect(classify(networkError(code, 'boom', false), SENT, NOW)).toEqual({
      kind: 'retry',
      reason,
    });
  });

  it.each([
    ['ECONNRESET', 'connection reset after the request was sent'],
    ['EPIPE', 'connection broken after the request was sent'],
    ['ETIMEDOUT', 'no answer in time (timeout)'],
    ['UND_ERR_SOCKET', 'connection closed by the other side after the request was sent'],
    ['UND_ERR_HEADERS_TIMEOUT', 'no answer in time (timeout)'],
    ['UND_ERR_BODY_TIMEOUT', 'the answer did not finish in time (timeout)'],
    ['TIMEOUT', 'no answer in time (timeout)'],
    ['RESPONSE_TOO_LARGE', 'the answer was too large after the request was sent'],
    ['UNKNOWN', 'boom after the request was sent'],
  ])('%s after the request was sent: may have been processed, so unknown', (code, reason) => {
    expect(classify(networkError(code, 'boom', true), SENT, NOW)).toEqual({
      kind: 'unknown',
      reason,
    });
  });

  it.each([
    ['ETIMEDOUT', 'no answer in time (timeout)'],
    ['UND_ERR_HEADERS_TIMEOUT', 'no answer in time (timeout)'],
    ['UND_ERR_BODY_TIMEOUT', 'the answer did not finish in time (timeout)'],
    ['UNKNOWN', 'boom during the request'],
  ])(
    '%s with no proof of sending is still unknown (only lost connections are known safe)',
    (code, reason) => {
      expect(classify(networkError(code, 'boom', false), SENT, NOW)).toEqual({
        kind: 'unknown',
        reason,
      });
    },
  );

  it("the client's own deadline passing before the request was written: it never left, so retry", () => {
    const timedOut = (requestSent: boolean): Exchange => ({
      kind: 'error',
      code: 'TIMEOUT',
      message: 'timeout',
      latencyMs: 3000,
      requestSent,
      timeoutMs: 3000,
    });
    expect(classify(timedOut(false), SENT, NOW)).toEqual({
      kind: 'retry',
      reason: 'could not connect within 3s (timeout)',
    });
    expect(classify(timedOut(true), SENT, NOW)).toEqual({
      kind: 'unknown',
      reason: 'no answer within 3s (timeout)',
    });
  });

  it.each(['UND_ERR_ABORTED', 'ABORT_ERR', 'ABORTED'])('%s: aborted by the operator', (code) => {
    expect(classify(networkError(code, 'boom', true), SENT, NOW)).toEqual({
      kind: 'unknown',
      reason: 'aborted while waiting for the answer',
    });
    expect(classify(networkError(code, 'boom', false), SENT, NOW)).toEqual({
      kind: 'failed',
      reason: 'aborted before sending',
      authRefused: false,
    });
  });
});

describe('classify: HTTP status classes', () => {
  it.each([401, 403])('%d: credentials refused', (status) => {
    expect(classify(response(status, 'nope'), SENT, NOW)).toEqual({
      kind: 'failed',
      reason: `credentials refused (HTTP ${status})`,
      authRefused: true,
    });
  });

  it.each([408, 429, 503])('%d without Retry-After: retry, no delay given', (status) => {
    expect(classify(response(status), SENT, NOW)).toEqual({
      kind: 'retry',
      reason: `HTTP ${status}`,
      retryAfterMs: undefined,
    });
  });

  it.each([
    [429, '7', 7_000],
    [503, '0', 0],
    [503, 'Sun, 01 Jun 2025 12:00:30 GMT', 30_000],
    [408, 'Sun, 01 Jun 2025 11:59:00 GMT', 0],
    [429, 'soon', undefined],
  ])('%d with Retry-After %j → retry after %s ms', (status, header, ms) => {
    expect(classify(response(status, '', { 'retry-after': header }), SENT, NOW)).toEqual({
      kind: 'retry',
      reason: `HTTP ${status}`,
      retryAfterMs: ms,
    });
  });

  it.each([500, 501, 502, 504, 507, 599])('%d: may have been processed, so unknown', (status) => {
    expect(classify(response(status, 'oops'), SENT, NOW)).toEqual({
      kind: 'unknown',
      reason: `HTTP ${status} from the gateway`,
    });
  });

  it.each([400, 404, 405, 409, 413, 415, 422, 451])('%d: failed, not an auth problem', (status) => {
    expect(classify(response(status, 'Bad   request\nbody'), SENT, NOW)).toEqual({
      kind: 'failed',
      reason: `HTTP ${status}: Bad request body`,
      authRefused: false,
    });
  });

  it.each([100, 301, 302, 304, 307, 308])('%d: not a success, failed', (status) => {
    expect(classify(response(status), SENT, NOW)).toEqual({
      kind: 'failed',
      reason: `HTTP ${status}: (empty body)`,
      authRefused: false,
    });
  });

  it('cuts a long error body to 200 characters', () => {
    const verdict = classify(response(400, 'x'.repeat(500)), SENT, NOW);
    expect(verdict).toEqual({
      kind: 'failed',
      reason: `HTTP 400: ${'x'.repeat(200)}…`,
      authRefused: false,
    });
  });

  it.each([200, 201, 202])('%d with a RestSmsResponse: per-message results', (status) => {
    const verdict = classify(
      response(status, { ProcessResult: true, Messages: [resp('m-1'), resp('m-2', 17)] }),
      SENT,
      NOW,
    );
    expect(verdict).toEqual({
      kind: 'results',
      results: [
        { outcome: 'accepted', statusCode: 0, statusDescription: 'OK', transactionId: 'T-m-1' },
        {
          outcome: 'rejected',
          statusCode: 17,
          statusDescription: 'Error 17',
          transactionId: 'T-m-2',
        },
      ],
    });
  });
});

describe('classify: response bodies', () => {
  it.each([
    ['empty', '', 'malformed response body: (empty body)'],
    [
      'HTML',
      '<html>\n  <body>Gateway</body>\n</html>',
      'malformed response body: <html> <body>Gateway</body> </html>',
    ],
    [
      'truncated JSON',
      '{"ProcessResult": true, "Mess',
      'malformed response body: {"ProcessResult": true, "Mess',
    ],
    ['JSONP', 'cb({"ProcessResult":true})', 'malformed response body: cb({"ProcessResult":true})'],
  ])('%s body → unknown', (_label, body, reason) => {
    expect(classify(response(200, body), SENT, NOW)).toEqual({ kind: 'unknown', reason });
  });

  it.each([
    ['{}', '{}'],
    ['null', 'null'],
    ['[]', '[]'],
    ['42', '42'],
    ['"ok"', '"ok"'],
    ['ProcessResult as a string', '{"ProcessResult":"true"}'],
    ['ProcessResult as a number', '{"ProcessResult":1}'],
  ])('%s → unknown (no boolean ProcessResult)', (_label, body) => {
    expect(classify(response(200, body), SENT, NOW)).toEqual({
      kind: 'unknown',
      reason: `response without ProcessResult: ${body}`,
    });
  });

  it.each([
    ['Authentication failed: wrong Username or Password', true],
    ['Invalid username or password', true],
    ['Bad credentials', true],
    ['Login failed', true],
    ['Unauthorized', true],
    ['Unauthorised access', true],
    ['Forbidden', true],
    ['PASSWORD EXPIRED', true],
    ['Too many messages in one request: 101 (maximum 100)', false],
    ['Simulated fault: the request was not processed', false],
    ['Internal error', false],
  ])('ProcessResult false "%s" → failed, authRefused %s', (description, authRefused) => {
    expect(
      classify(
        response(200, {
          ProcessResult: false,
          ProcessResultDescription: description,
          Messages: [],
        }),
        SENT,
        NOW,
      ),
    ).toEqual({
      kind: 'failed',
      reason: `gateway refused the request: ${description}`,
      authRefused,
    });
  });

  it('ProcessResult false without a description → failed, not an auth problem', () => {
    expect(classify(response(200, { ProcessResult: false }), SENT, NOW)).toEqual({
      kind: 'failed',
      reason: 'gateway refused the request: ProcessResult false',
      authRefused: false,
    });
  });

  it('an empty request with an empty answer has no results', () => {
    expect(classify(response(200, { ProcessResult: true, Messages: [] }), [], NOW)).toEqual({
      kind: 'results',
      results: [],
    });
  });

  it('a successful answer without Messages leaves every message unknown', () => {
    expect(classify(response(200, { ProcessResult: true }), SENT, NOW)).toEqual({
      kind: 'results',
      results: [
        { outcome: 'unknown', error: 'the gateway returned 0 results for 2 messages' },
        { outcome: 'unknown', error: 'the gateway returned 0 results for 2 messages' },
      ],
    });
  });
});

describe('matchResults', () => {
  it('matches by position and keeps ExtraInfo when it has entries', () => {
    const results = matchResults(
      [resp('a', 0, { server: 'smsgw1', subnumref: '19331234567891' }), resp('b', 0, {})],
      [req('a'), req('b')],
    );
    expect(results).toEqual([
      {
        outcome: 'accepted',
        statusCode: 0,
        statusDescription: 'OK',
        transactionId: 'T-a',
        extraInfo: { server: 'smsgw1', subnumref: '19331234567891' },
      },
      { outcome: 'accepted', statusCode: 0, statusDescription: 'OK', transactionId: 'T-b' },
    ]);
  });

  it('matches by position when neither side has a MessageId', () => {
    const results = matchResults([{ ...resp('', 0), MessageId: '' }, resp('', 5)], [req(), req()]);
    expect(results.map((r) => r.outcome)).toEqual(['accepted', 'rejected']);
  });

  it('accepts a result with an empty MessageId at the right position', () => {
    const results = matchResults([{ ...resp('x'), MessageId: '' }], [req('a')]);
    expect(results).toEqual([
      { outcome: 'accepted', statusCode: 0, statusDescription: 'OK', transactionId: 'T-x' },
    ]);
  });

  it('marks a result whose MessageId disagrees with its position unknown, keeping the others', () => {
    const results = matchResults(
      [resp('a'), resp('zzz'), resp('c', 9)],
      [req('a'), req('b'), req('c')],
    );
    expect(results).toEqual([
      { outcome: 'accepted', statusCode: 0, statusDescription: 'OK', transactionId: 'T-a' },
      { outcome: 'unknown', error: 'result 2 names MessageId zzz, expected b' },
      { outcome: 'rejected', statusCode: 9, statusDescription: 'Error 9', transactionId: 'T-c' },
    ]);
  });

  it('marks results that came back in another order unknown rather than trusting positions', () => {
    const results = matchResults([resp('b'), resp('a')], [req('a'), req('b')]);
    expect(results).toEqual([
      { outcome: 'unknown', error: 'result 1 names MessageId b, expected a' },
      { outcome: 'unknown', error: 'result 2 names MessageId a, expected b' },
    ]);
  });

  it('on a count mismatch keeps results matched by MessageId and makes the rest unknown', () => {
    const results = matchResults([resp('c', 3), resp('a')], [req('a'), req('b'), req('c')]);
    const mismatch = 'the gateway returned 2 results for 3 messages';
    expect(results).toEqual([
      { outcome: 'accepted', statusCode: 0, statusDescription: 'OK', transactionId: 'T-a' },
      { outcome: 'unknown', error: mismatch },
      { outcome: 'rejected', statusCode: 3, statusDescription: 'Error 3', transactionId: 'T-c' },
    ]);
  });

  it('on a count mismatch with more results than messages still matches by MessageId', () => {
    const results = matchResults([resp('x'), resp('a'), resp('y')], [req('a')]);
    expect(results).toEqual([
      { outcome: 'accepted', statusCode: 0, statusDescription: 'OK', transactionId: 'T-a' },
    ]);
  });

  it('on a count mismatch, messages without a MessageId cannot be matched and are unknown', () => {
    const results = matchResults([resp('')], [req(), req()]);
    const mismatch = 'the gateway returned 1 results for 2 messages';
    expect(results).toEqual([
      { outcome: 'unknown', error: mismatch },
      { outcome: 'unknown', error: mismatch },
    ]);
  });

  it('goes through classify for a 200 answer with a missing result', () => {
    const verdict = classify(
      response(200, { ProcessResult: true, Messages: [resp('m-2', 4)] }),
      SENT,
      NOW,
    );
    expect(verdict).toEqual({
      kind: 'results',
      results: [
        { outcome: 'unknown', error: 'the gateway returned 1 results for 2 messages' },
        {
          outcome: 'rejected',
          statusCode: 4,
          statusDescription: 'Error 4',
          transactionId: 'T-m-2',
        },
      ],
    });
  });
});

describe('parseRetryAfter', () => {
  it.each([
    ['0', 0],
    ['1', 1_000],
    ['120', 120_000],
    [' 30 ', 30_000],
    // HTTP-dates, against NOW = Sun, 01 Jun 2025 12:00:00 GMT.
    ['Sun, 01 Jun 2025 12:00:45 GMT', 45_000],
    ['Sun, 01 Jun 2025 13:00:00 GMT', 3_600_000],
    ['Sun, 01 Jun 2025 12:00:00 GMT', 0],
    ['Sun, 01 Jun 2025 11:00:00 GMT', 0], // in the past: retry now, never a negative delay
  ])('%j → %d ms', (value, ms) => {
    expect(parseRetryAfter(value, NOW)).toBe(ms);
  });

  it.each([undefined, '', 'soon', '12abc', 'later, please'])('%j → undefined', (value) => {
    expect(parseRetryAfter(value, NOW)).toBeUndefined();
  });

  // Neither delay-seconds (digits only) nor an HTTP-date: RFC 9110 says to ignore them, so the caller
  // falls back to its own backoff. Date.parse's legacy parser reads them as dates in 2001.
  it.each(['1.5', '-1', '2.5'])('%j is not a valid Retry-After → undefined', (value) => {
    expect(parseRetryAfter(value, NOW)).toBeUndefined();
  });

  // An HTTP-date begins with its weekday; V8 reads these as dates all the same.
  it.each(['1 Jan 2030', '2030 Jun 1', 'Z 2030-01-01', 'ab 2030'])(
    '%j does not begin with a weekday → undefined',
    (value) => {
      expect(Date.parse(value)).not.toBeNaN();
      expect(parseRetryAfter(value, NOW)).toBeUndefined();
    },
  );

  it('an HTTP-date without its comma is still read', () => {
    expect(parseRetryAfter('Sun 01 Jun 2025 12:00:30 GMT', NOW)).toBe(30_000);
  });

  it.each(['2.5e1'])('%j is not delay-seconds → undefined', (value) => {
    expect(parseRetryAfter(value, NOW)).toBeUndefined();
  });
});
