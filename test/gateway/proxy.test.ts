// Which proxy a request to the gateway goes through: the setting or the environment's variables,
// and NO_PROXY as undici and curl read it.
import { describe, expect, it } from 'vitest';
import { bypasses, proxiesOf, proxyFor } from '../../src/gateway/proxy.js';

describe('proxiesOf', () => {
  it.each([
    ['nothing set', {}, {}],
    [
      'HTTPS_PROXY for https, HTTP_PROXY for http',
      { HTTPS_PROXY: 'http://s:1', HTTP_PROXY: 'http://p:2' },
      {
        https: { url: 'http://s:1', from: 'HTTPS_PROXY' },
        http: { url: 'http://p:2', from: 'HTTP_PROXY' },
      },
    ],
    [
      'the lower-case names first',
      { https_proxy: 'http://low:1', HTTPS_PROXY: 'http://UP:1' },
      { https: { url: 'http://low:1', from: 'https_proxy' } },
    ],
    [
      'HTTP_PROXY for https too when HTTPS_PROXY is not set (as undici)',
      { HTTP_PROXY: 'http://p:2' },
      {
        https: { url: 'http://p:2', from: 'HTTP_PROXY' },
        http: { url: 'http://p:2', from: 'HTTP_PROXY' },
      },
    ],
    ['an empty variable is not set', { HTTPS_PROXY: ' ' }, {}],
    ['NO_PROXY, or no_proxy', { no_proxy: 'a,b', NO_PROXY: 'c' }, { noProxy: 'a,b' }],
  ])('%s', (_name, env, expected) => {
    expect(proxiesOf(undefined, env)).toEqual(expected);
  });

  it('the proxy setting wins over the variables, for both schemes; NO_PROXY still applies', () => {
    const setting = { url: 'http://corp:3128', from: '--proxy' };
    expect(proxiesOf(setting, { HTTPS_PROXY: 'http://other:1', NO_PROXY: 'local' })).toEqual({
      http: setting,
      https: setting,
      noProxy: 'local',
    });
  });
});

describe('bypasses: NO_PROXY', () => {
  it.each([
    ['gw.example', 443, '', false],
    ['gw.example', 443, '*', true],
    ['gw.example', 443, 'gw.example', true],
    ['GW.example', 443, 'gw.EXAMPLE', true],
    ['sms.gw.example', 443, 'gw.example', true],
    ['sms.gw.example', 443, '.gw.example', true],
    ['sms.gw.example', 443, '*.gw.example', true],
    ['gw.example.org', 443, 'gw.example', false],
    ['notgw.example', 443, 'gw.example', false],
    ['gw.example', 443, 'gw.example:443', true],
    ['gw.example', 8443, 'gw.example:443', false],
    ['127.0.0.1', 80, 'localhost, 127.0.0.1', true],
    ['[::1]', 80, '::1', true],
    ['[::1]', 8080, '[::1]:8080', true],
    ['[::1]', 80, '[::1]:8080', false],
  ])('%s:%i with NO_PROXY=%j → %s', (host, port, noProxy, expected) => {
    expect(bypasses(host, port, noProxy)).toBe(expected);
  });
});

describe('proxyFor', () => {
  const proxies = {
    https: { url: 'http://s:1', from: 'HTTPS_PROXY' },
    http: { url: 'http://p:2', from: 'HTTP_PROXY' },
    noProxy: 'internal.example',
  };
  it.each([
    ['https://smsgw.intele.no/pushsms/rest', 'HTTPS_PROXY'],
    ['http://gw.example:8080/rest', 'HTTP_PROXY'],
    ['https://sms.internal.example/rest', undefined],
    ['http://[::1]:9/rest', 'HTTP_PROXY'],
  ])('%s goes through %s', (endpoint, from) => {
    expect(proxyFor(endpoint, proxies)?.from).toBe(from);
  });
});
