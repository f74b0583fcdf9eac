// The proof a DeliveryReportUrl carries: a MAC of the campaign and MessageId, so only the gateway's reports are believed.
import { createHmac, timingSafeEqual, type KeyObject } from 'node:crypto';

/** The query parameter sms-send adds to every DeliveryReportUrl it sends. */
export const PROOF_PARAM = 'smsig';

/**
 * What the proof of a canary's test message (`check --await-dlr`) names in place of a campaign:
 * no campaign's ID starts with "_", so a canary's proof is never taken for a campaign's.
 */
export const CANARY = '_canary';

/** Bytes of HMAC-SHA-256 kept: 128 bits, 22 base64url characters. */
const MAC_BYTES = 16;
const MAC_CHARS = 22;

/** Signs the DeliveryReportUrls of one campaign. The key never leaves the process. */
export interface DlrSigner {
  key: KeyObject;
  /** The campaign's ID: `[A-Za-z0-9._-]`, so it travels in a URL as it is. */
  campaign: string;
}

function mac(key: KeyObject, campaign: string, messageId: string): Buffer {
  return createHmac('sha256', key)
    .update(`${campaign}\n${messageId}`)
    .digest()
    .subarray(0, MAC_BYTES);
}

/** `<MAC, base64url>.<campaign ID>`: the value of the proof parameter for one message. */
export function proofFor(signer: DlrSigner, messageId: string): string {
  return `${mac(signer.key, signer.campaign, messageId).toString('base64url')}.${signer.campaign}`;
}

/** How many characters the proof adds to a URL (`&smsig=` or `?smsig=` and its value). */
export function proofLength(campaign: string): number {
  return 1 + PROOF_PARAM.length + 1 + MAC_CHARS + 1 + campaign.length;
}

/**
 * The URL with the proof added as one more query parameter, before any fragment; every other
 * byte stays as given (placeholders such as `[$MSGID]` included).
 */
export function withProof(url: string, proof: string): string {
  const hash = url.indexOf('#');
  const head = hash < 0 ? url : url.slice(0, hash);
  const tail = hash < 0 ? '' : url.slice(hash);
  const query = head.indexOf('?');
  const separator = query < 0 ? '?' : head.endsWith('?') || head.endsWith('&') ? '' : '&';
  return `${head}${separator}${PROOF_PARAM}=${proof}${tail}`;
}

/** Whether a URL already has a parameter of the proof's name (which would be ambiguous). */
export function hasProofParam(url: string): boolean {
  const hash = url.indexOf('#');
  const head = hash < 0 ? url : url.slice(0, hash);
  const query = head.indexOf('?');
  if (query < 0) return false;
  return head
    .slice(query + 1)
    .split('&')
    .some((pair) => pair.split('=')[0]!.toLowerCase() === PROOF_PARAM);
}

export type ProofCheck =
  { ok: true; campaign: string } | { ok: false; reason: 'bad signature'; campaign?: string };

/**
 * Checks a proof against each key (the current secret and any retired ones), comparing in
 * constant time. On success, the campaign it was made for.
 */
export function checkProof(
  keys: readonly KeyObject[],
  proof: string,
  messageId: string,
): ProofCheck {
  const dot = proof.indexOf('.');
  if (dot !== MAC_CHARS || proof.length > MAC_CHARS + 1 + 64)
    return { ok: false, reason: 'bad signature' };
  const campaign = proof.slice(dot + 1);
  const given = Buffer.from(proof.slice(0, dot), 'base64url');
  if (given.length !== MAC_BYTES || campaign === '') return { ok: false, reason: 'bad signature' };
  let ok = false;
  for (const key of keys) if (timingSafeEqual(mac(key, campaign, messageId), given)) ok = true;
  return ok ? { ok: true, campaign } : { ok: false, reason: 'bad signature', campaign };
}
