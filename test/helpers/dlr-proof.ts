// Makes delivery reports' proofs the way sms-send does, from a state directory's secret: for tests that play the gateway.
import { createSecretKey } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PROOF_PARAM, proofFor } from '../../src/shared/dlr-proof.js';

/**
 * The proof (the value of `smsig`) for a MessageId of a campaign in `stateDir` (its only
 * campaign, unless named), made with the state directory's secret: what the gateway finds in a
 * DeliveryReportUrl.
 */
export async function proofMaker(
  stateDir: string,
  campaign?: string,
): Promise<(messageId: string) => string> {
  const key = createSecretKey(await readFile(join(stateDir, 'dlr-secret')));
  const ids = campaign === undefined ? await readdir(join(stateDir, 'campaigns')) : [campaign];
  if (ids.length !== 1)
    throw new Error(`expected one campaign in ${stateDir}, found ${ids.length}`);
  const signer = { key, campaign: ids[0]! };
  return (messageId) => proofFor(signer, messageId);
}

/** `smsig=<proof>`, as proofMaker. */
export async function proofParam(
  stateDir: string,
  campaign?: string,
): Promise<(messageId: string) => string> {
  const proof = await proofMaker(stateDir, campaign);
  return (messageId) => `${PROOF_PARAM}=${proof(messageId)}`;
}
