// answerOf masks the password wherever in a result the gateway echoes it, in every form, and keeps the rest.
import { describe, expect, it } from 'vitest';
import type { Exchange } from '../../src/gateway/exchange.js';
import { answerOf, type GatewayResult } from '../../src/gateway/outcome.js';
import { redactor } from '../../src/gateway/redact.js';
import type { RestSmsMessageResp } from '../../src/gateway/types.js';

const USER = 'acme-user';
const PASSWORD = 'Pw-LEAK-7781"\\é';
const redact = redactor(USER, PASSWORD);

/** The forms the secrets tests search every output for, written out by hand. */
const FORMS: [string, string][] = [
  ['raw', PASSWORD],
  ['JSON-escaped', 'Pw-LEAK-7781\\"\\\\é'],
  ['URL-encoded', 'Pw-LEAK-7781%22%5C%C3%A9'],
  ['base64', Buffer.from(PASSWORD).toString('base64')],
  ['base64 of user:password', Buffer.from(`${USER}:${PASSWORD}`).toString('base64')],
];

const clean: RestSmsMessageResp = {
  StatusCode: 0,
  StatusDescription: 'Accepted',
  MessageId: 'm1',
  TransactionId: 't1',
  ExtraInfo: { server: 'gw-1' },
};

function results(second: Partial<RestSmsMessageResp>, ids = ['m1', 'm2']): GatewayResult[] {
  const exchange: Exchange = {
    kind: 'response',
    status: 200,
    headers: {},
    body: JSON.stringify({
      ProcessResult: true,
      Messages: [clean, { StatusCode: 7, MessageId: 'm2', ...second }],
    }),
    latencyMs: 1,
  };
  const { verdict } = answerOf(exchange, ids, 0, redact);
  if (verdict.kind !== 'results') throw new Error(`expected results, got ${verdict.kind}`);
  return verdict.results;
}

/** Every text of the results, keys and numbers included, as a report or journal would hold them. */
function everything(found: GatewayResult[]): string {
  return JSON.stringify(found) + found.map((r) => Object.values(r).map(String).join()).join();
}

function expectNoForm(found: GatewayResult[]): void {
  const text = everything(found);
  for (const [, form] of FORMS) expect(text).not.toContain(form);
  expect(text).not.toContain('LEAK');
}

describe('answerOf masks a password echoed in any field of a result', () => {
  describe.each(FORMS)('%s', (_, form) => {
    it('in StatusDescription alone', () => {
      const found = results({ StatusDescription: `bad ${form} here` });
      expect(found[1]!.statusDescription).toMatch(/^bad \*\*\*=* here$/);
      expectNoForm(found);
    });

    it('in TransactionId alone', () => {
      const found = results({ StatusDescription: 'Rejected', TransactionId: `tx-${form}` });
      expect(found[1]!.transactionId).toMatch(/^tx-\*\*\*=*$/);
      expect(found[1]!.statusDescription).toBe('Rejected');
      expectNoForm(found);
    });

    it('in an ExtraInfo key and value', () => {
      const found = results({ ExtraInfo: { [`k-${form}`]: `v-${form}`, server: 'gw-2' } });
      expect(Object.entries(found[1]!.extraInfo!)).toEqual([
        [expect.stringMatching(/^k-\*\*\*=*$/), expect.stringMatching(/^v-\*\*\*=*$/)],
        ['server', 'gw-2'],
      ]);
      expectNoForm(found);
    });

    it('in the error naming a MessageId the gateway echoed', () => {
      const found = results({ MessageId: `id-${form}` });
      expect(found[1]!.outcome).toBe('unknown');
      expect(found[1]!.error).toMatch(/^result 2 names MessageId id-\*\*\*=*, expected m2$/);
      expectNoForm(found);
    });
  });

  it('keeps every other field of a masked result, and the results without a secret whole', () => {
    const found = results({
      StatusDescription: `echo ${PASSWORD}`,
      TransactionId: 't2',
      ExtraInfo: { server: 'gw-2' },
    });
    expect(found).toEqual([
      {
        outcome: 'accepted',
        statusCode: 0,
        statusDescription: 'Accepted',
        transactionId: 't1',
        extraInfo: { server: 'gw-1' },
      },
      {
        outcome: 'rejected',
        statusCode: 7,
        statusDescription: 'echo ***',
        transactionId: 't2',
        extraInfo: { server: 'gw-2' },
      },
    ]);
  });

  it('never masks the outcome, sms-send’s own word, even when the password spells it', () => {
    const spells = redactor(USER, 'accepted');
    const exchange: Exchange = {
      kind: 'response',
      status: 200,
      headers: {},
      body: JSON.stringify({
        ProcessResult: true,
        Messages: [{ ...clean, StatusDescription: 'accepted' }],
      }),
      latencyMs: 1,
    };
    const { verdict } = answerOf(exchange, ['m1'], 0, spells);
    expect(verdict).toEqual({
      kind: 'results',
      results: [expect.objectContaining({ outcome: 'accepted', statusDescription: '***' })],
    });
  });

  it('masks a number the gateway returned when it spells the password', () => {
    const digits = redactor(USER, '20250601');
    const exchange: Exchange = {
      kind: 'response',
      status: 200,
      headers: {},
      body: JSON.stringify({
        ProcessResult: true,
        Messages: [{ ...clean, ExtraInfo: { code: 20250601, other: 5 } }],
      }),
      latencyMs: 1,
    };
    const { verdict } = answerOf(exchange, ['m1'], 0, digits);
    expect(verdict.kind === 'results' && verdict.results[0]!.extraInfo).toEqual({
      code: '***',
      other: 5,
    });
  });

  it('returns the results as they are when none holds a secret', () => {
    const found = results({ StatusDescription: 'Rejected', TransactionId: 't2' });
    expect(found.map((r) => r.statusDescription)).toEqual(['Accepted', 'Rejected']);
    expect(found[0]!.extraInfo).toEqual({ server: 'gw-1' });
  });
});
