// The proof in a DeliveryReportUrl: where it goes in the URL, how long it is, and what verifies.
import { createSecretKey, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { buildMessage, type Built } from '../../src/message/build.js';
import { planColumns } from '../../src/message/columns.js';
import {
  checkProof,
  hasProofParam,
  proofFor,
  proofLength,
  withProof,
  type DlrSigner,
} from '../../src/shared/dlr-proof.js';

const signer: DlrSigner = { key: createSecretKey(randomBytes(32)), campaign: '0123456789abcdef' };
const TEMPLATE = 'https://sms.example.com/dlr?msgid=[$MSGID]&status=[$STATUS]';

describe('withProof', () => {
  it.each([
    ['https://a.example/dlr?msgid=[$MSGID]', 'https://a.example/dlr?msgid=[$MSGID]&smsig=P'],
    ['https://a.example/dlr', 'https://a.example/dlr?smsig=P'],
    ['https://a.example/dlr?', 'https://a.example/dlr?smsig=P'],
    ['https://a.example/dlr?a=1&', 'https://a.example/dlr?a=1&smsig=P'],
    ['https://a.example/dlr?a=1#top', 'https://a.example/dlr?a=1&smsig=P#top'],
    ['https://a.example/dlr#x?y', 'https://a.example/dlr?smsig=P#x?y'],
  ])('adds the proof to %s and changes nothing else', (url, signed) => {
    expect(withProof(url, 'P')).toBe(signed);
  });

  it('adds exactly proofLength characters', () => {
    const proof = proofFor(signer, 'abc-1');
    expect(withProof(TEMPLATE, proof).length - TEMPLATE.length).toBe(proofLength(signer.campaign));
    expect(withProof('https://a.example/dlr', proof).length).toBe(
      'https://a.example/dlr'.length + proofLength(signer.campaign),
    );
  });

  it('finds a parameter of its name already there, in any case', () => {
    expect(hasProofParam('https://a.example/?SMSIG=1')).toBe(true);
    expect(hasProofParam('https://a.example/?a=1&smsig')).toBe(true);
    expect(hasProofParam('https://a.example/?smsigx=1#smsig=2')).toBe(false);
  });
});

describe('checkProof', () => {
  const proof = proofFor(signer, 'abc-1');

  it('verifies the proof of a message and names its campaign', () => {
    expect(proof).toMatch(/^[A-Za-z0-9_-]{22}\.0123456789abcdef$/);
    expect(checkProof([signer.key], proof, 'abc-1')).toEqual({
      ok: true,
      campaign: signer.campaign,
    });
  });

  it('refuses it for another message, another campaign, another key, or cut short', () => {
    const other = createSecretKey(randomBytes(32));
    expect(checkProof([signer.key], proof, 'abc-2').ok).toBe(false);
    expect(checkProof([signer.key], proof.replace(/\.[^.]+$/, '.other'), 'abc-1').ok).toBe(false);
    expect(checkProof([other], proof, 'abc-1').ok).toBe(false);
    expect(checkProof([signer.key], proof.slice(0, 21) + proof.slice(22), 'abc-1').ok).toBe(false);
    expect(checkProof([signer.key], '', 'abc-1').ok).toBe(false);
    // A retired key still verifies what it signed.
    expect(checkProof([other, signer.key], proof, 'abc-1').ok).toBe(true);
  });
});

describe('buildMessage with a signer', () => {
  function build(url: string, messageId?: string): Built {
    const fields: Record<string, string> = { to: '4741234567', text: 'Hi' };
    if (messageId !== undefined) fields['MessageId'] = messageId;
    return buildMessage(
      { row: 7, file: 'c.csv', line: 8, fields },
      planColumns(Object.keys(fields), {}, false),
      {
        settings: {
          defaults: { gateway: 99700999, price: 0, customData: {}, deliveryReportUrl: url },
        },
        campaignKey: 'abcdef0123',
        now: new Date(),
        dlrSigner: signer,
      },
    );
  }

  it("adds the message's proof to its DeliveryReportUrl, the same on every build", () => {
    const built = build(TEMPLATE);
    if (!built.ok) throw new Error(JSON.stringify(built.problems));
    const url = built.message.DeliveryReportUrl!;
    expect(url).toBe(`${TEMPLATE}&smsig=${proofFor(signer, 'abcdef0123-7')}`);
    expect(build(TEMPLATE)).toMatchObject({ message: { DeliveryReportUrl: url } });
    const own = build(TEMPLATE, 'my-id');
    expect(own).toMatchObject({
      message: { DeliveryReportUrl: `${TEMPLATE}&smsig=${proofFor(signer, 'my-id')}` },
    });
  });

  it('counts the proof in the 2,048-character limit', () => {
    const fits = `https://a.example/?q=${'x'.repeat(2048 - 21 - proofLength(signer.campaign))}`;
    expect(build(fits)).toMatchObject({ ok: true });
    expect(build(`${fits}y`)).toMatchObject({
      ok: false,
      problems: [
        {
          field: 'DeliveryReportUrl',
          reason: `is ${2049 - proofLength(signer.campaign)} characters, 2049 with the proof sms-send adds (at most 2048)`,
        },
      ],
    });
  });

  it('refuses a URL that already has a smsig parameter', () => {
    expect(build('https://a.example/?smsig=mine')).toMatchObject({
      ok: false,
      problems: [{ field: 'DeliveryReportUrl', reason: expect.stringMatching(/smsig/) as string }],
    });
  });
});
