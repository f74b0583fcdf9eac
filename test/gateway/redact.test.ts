// Every form of the password that a gateway or library may echo is masked, and nothing else is.
import { describe, expect, it } from 'vitest';
import type { Exchange } from '../../src/gateway/exchange.js';
import { answerOf, classify } from '../../src/gateway/outcome.js';
import { redactor, secretForms } from '../../src/gateway/redact.js';

const USER = 'acme-user';
const PASSWORD = 'Zq7"xK\\p9$Wm#Leak-Me';
const redact = redactor(USER, PASSWORD);

/** Each form written out by hand, so the test does not share the code it checks. */
const FORMS: [string, string][] = [
  ['raw', 'Zq7"xK\\p9$Wm#Leak-Me'],
  ['JSON-escaped once', 'Zq7\\"xK\\\\p9$Wm#Leak-Me'],
  ['JSON-escaped twice', 'Zq7\\\\\\"xK\\\\\\\\p9$Wm#Leak-Me'],
  ['CSV-escaped', 'Zq7""xK\\p9$Wm#Leak-Me'],
  ['XML-escaped', 'Zq7&quot;xK\\p9$Wm#Leak-Me'],
  ['XML numeric reference', 'Zq7&#34;xK\\p9$Wm#Leak-Me'],
  ['XML-escaped JSON (an HTML error page quoting the body)', 'Zq7\\&quot;xK\\\\p9$Wm#Leak-Me'],
  ['URL-encoded', 'Zq7%22xK%5Cp9%24Wm%23Leak-Me'],
  ['URL-encoded JSON', 'Zq7%5C%22xK%5C%5Cp9%24Wm%23Leak-Me'],
  ['base64 of user:password', Buffer.from(`${USER}:${PASSWORD}`).toString('base64')],
  [
    'base64 of user:password, unpadded',
    Buffer.from(`${USER}:${PASSWORD}`).toString('base64').replace(/=+$/, ''),
  ],
];

describe('redactor', () => {
  it.each(FORMS)('masks the %s form inside other text', (_name, form) => {
    expect(redact(`before ${form} after`)).toMatch(/^before \*\*\*=* after$/);
    expect(redact(`${form}${form}`)).toMatch(/^\*\*\*=*\*\*\*=*$/);
  });

  it('masks a doubly escaped form whole, not around the shorter form inside it', () => {
    const body = JSON.stringify(JSON.stringify({ Username: USER, Password: PASSWORD }));
    expect(redact(body)).toBe(JSON.stringify(JSON.stringify({ Username: USER, Password: '***' })));
  });

  it('leaves text without the password alone, and the username too', () => {
    for (const text of ['Accepted', `user ${USER}`, 'Zq7', 'Leak-Me', ''])
      expect(redact(text)).toBe(text);
  });

  it('masks a plain password, and a password of fewer than four characters nowhere', () => {
    expect(redactor('u', 'hunter22')('pw=hunter22;')).toBe('pw=***;');
    expect(redactor('u', 'abc')('abc Accepted')).toBe('abc Accepted');
  });

  it('a password with non-ASCII, spaces or a lone surrogate: its encoded forms too, never a throw', () => {
    const r = redactor('u', 'pä ss wörd');
    expect(r('x pä ss wörd x')).toBe('x *** x');
    expect(r('x p\\u00e4 ss w\\u00f6rd x')).toBe('x *** x');
    expect(r('x p%C3%A4%20ss%20w%C3%B6rd x')).toBe('x *** x');
    expect(r('x p%C3%A4+ss+w%C3%B6rd x')).toBe('x *** x');
    expect(redactor('u', 'ab\ud800cd')('x ab\ud800cd x')).toBe('x *** x');
  });
});

describe('classify() masks a response body before cutting it to an excerpt', () => {
  const response = (status: number, body: string): Exchange => ({
    kind: 'response',
    status,
    headers: {},
    body,
    latencyMs: 1,
  });

  it.each([
    ['a form cut at the excerpt end', PASSWORD, 190],
    ['a password whose tab and newline the excerpt would flatten', 'tab\tand\nnewline-pw', 10],
  ])('%s', (_name, password, at) => {
    const r = redactor(USER, password);
    const body = `${'x'.repeat(at)}${JSON.stringify(password).slice(1, -1)} ${password} tail`;
    for (const exchange of [response(400, body), response(200, body)]) {
      const verdict = classify(exchange, ['m1'], 0, r);
      const reason = verdict.kind === 'results' ? '' : verdict.reason;
      expect(reason).toMatch(/^(HTTP 400|malformed response body): x+\*\*\*/);
      for (const fragment of [password.slice(0, 6), password.slice(0, 3)]) {
        expect(reason).not.toContain(fragment);
      }
    }
  });
});

describe('answerOf: results are masked field by field whenever any of them holds a secret', () => {
  const answer = (description: string, extraInfo: Record<string, string> = {}) =>
    answerOf(
      {
        kind: 'response',
        status: 200,
        headers: {},
        body: JSON.stringify({
          ProcessResult: true,
          Messages: [
            { StatusCode: 0, StatusDescription: 'Accepted', MessageId: 'm1', TransactionId: 't1' },
            {
              StatusCode: 9,
              StatusDescription: description,
              MessageId: 'm2',
              TransactionId: 't2',
              ExtraInfo: extraInfo,
            },
          ],
        }),
        latencyMs: 1,
      },
      ['m1', 'm2'],
      0,
      redact,
    );

  it.each([
    ['raw', PASSWORD],
    ['CSV-escaped', PASSWORD.replaceAll('"', '""')],
    ['JSON-escaped', JSON.stringify(PASSWORD).slice(1, -1)],
    ['URL-encoded', encodeURIComponent(PASSWORD)],
  ])('a %s password in one description is masked', (_, form) => {
    const verdict = answer(`echo: ${form}`).verdict;
    expect(verdict.kind === 'results' && verdict.results[1]!.statusDescription).toBe('echo: ***');
  });

  it('in an ExtraInfo value too; results without a secret are left as they are', () => {
    const verdict = answer('Rejected', { server: PASSWORD }).verdict;
    expect(verdict.kind === 'results' && verdict.results.map((r) => r.statusDescription)).toEqual([
      'Accepted',
      'Rejected',
    ]);
    expect(verdict.kind === 'results' && verdict.results[1]!.extraInfo).toEqual({ server: '***' });
  });
});

describe('redactor: a password holding every character an escaping changes', () => {
  // 23 bytes in UTF-8, so base64 of it ends in one `=` and base64 of `acme:` and it in two.
  const SPECIAL = `Q'u"o&a<b>c\\d%e+f/g=hé`;
  const mask = redactor('acme', SPECIAL);

  /** Each form written out by hand. */
  const SPECIAL_FORMS: [string, string][] = [
    ['raw', `Q'u"o&a<b>c\\d%e+f/g=hé`],
    ['JSON-escaped once', `Q'u\\"o&a<b>c\\\\d%e+f/g=hé`],
    ['JSON-escaped twice', `Q'u\\\\\\"o&a<b>c\\\\\\\\d%e+f/g=hé`],
    ['ASCII-only JSON', `Q'u\\"o&a<b>c\\\\d%e+f/g=h\\u00e9`],
    ['CSV-escaped', `Q'u""o&a<b>c\\d%e+f/g=hé`],
    ['XML with named quotes', `Q&apos;u&quot;o&amp;a&lt;b&gt;c\\d%e+f/g=hé`],
    ['XML with numeric quotes', `Q&#39;u&#34;o&amp;a&lt;b&gt;c\\d%e+f/g=hé`],
    ['XML element text, quotes raw', `Q'u"o&amp;a&lt;b&gt;c\\d%e+f/g=hé`],
    ['XML of the JSON-escaped form', `Q&apos;u\\&quot;o&amp;a&lt;b&gt;c\\\\d%e+f/g=hé`],
    ['URL-encoded', `Q'u%22o%26a%3Cb%3Ec%5Cd%25e%2Bf%2Fg%3Dh%C3%A9`],
    ['form body', `Q%27u%22o%26a%3Cb%3Ec%5Cd%25e%2Bf%2Fg%3Dh%C3%A9`],
    ['base64 of user:password, unpadded', 'YWNtZTpRJ3UibyZhPGI+Y1xkJWUrZi9nPWjDqQ'],
    ['base64 of the password, unpadded', 'USd1Im8mYTxiPmNcZCVlK2YvZz1ow6k'],
  ];

  it.each(SPECIAL_FORMS)('masks the %s form, whole', (_name, form) => {
    expect(mask(`before ${form} after`)).toBe('before *** after');
  });

  it('masks base64 followed by its padding, one `=` or two, and leaves the padding', () => {
    expect(mask('Basic YWNtZTpRJ3UibyZhPGI+Y1xkJWUrZi9nPWjDqQ==;')).toBe('Basic ***==;');
    expect(mask('b64 USd1Im8mYTxiPmNcZCVlK2YvZz1ow6k=;')).toBe('b64 ***=;');
  });

  it('leaves a single escaped character of it alone', () => {
    for (const text of ['&apos;&quot;&amp;&lt;&gt;', '%22%26%3C%3E', 'Q\'u"o', 'hé'])
      expect(mask(text)).toBe(text);
  });
});

describe('redactor: the edges of what is masked', () => {
  it('a form of exactly four characters is masked', () => {
    expect(redactor('u', 'wxyz')('pw wxyz.')).toBe('pw ***.');
  });

  it('an empty password has no forms, and masks nothing, not even the base64 of `user:`', () => {
    // base64('acme-user:') is a form of ten characters, were the empty password not refused.
    const userColon = Buffer.from(`${USER}:`).toString('base64').replace(/=+$/, '');
    expect(secretForms(USER, '')).toEqual([]);
    expect(redactor(USER, '')(`Basic ${userColon} ok`)).toBe(`Basic ${userColon} ok`);
  });

  it('a password all of whose forms are too short leaves text exactly as it was', () => {
    // 'a', ':a' in base64 ('YQ', 'OmE'): nothing of four characters or more.
    expect(secretForms('', 'a')).toEqual([]);
    expect(redactor('', 'a')('a cat')).toBe('a cat');
  });

  it('masks the longer of two forms when the shorter is its beginning', () => {
    // The raw form `pass"` begins the CSV form `pass""`; the JSON form `pass\"` its CSV `pass\""`.
    const r = redactor('u', 'pass"');
    expect(r('x pass"" x')).toBe('x *** x');
    expect(r('x pass\\"" x')).toBe('x *** x');
    expect(r('x pass" x')).toBe('x *** x');
  });

  it('a password with a lone surrogate: the forms are those that can be written, no others', () => {
    // encodeURIComponent refuses the raw password; URLSearchParams and UTF-8 write U+FFFD.
    expect(new Set(secretForms('u', 'ab\ud800cd'))).toEqual(
      new Set([
        'ab\ud800cd',
        'ab\\ud800cd',
        'ab\\\\ud800cd',
        'ab%5Cud800cd',
        'ab%5C%5Cud800cd',
        'ab%EF%BF%BDcd',
        'YWLvv71jZA',
        'dTphYu+/vWNk',
      ]),
    );
  });
});
