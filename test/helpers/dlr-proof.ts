// Makes delivery reports' proofs the way sms-send does, from a state directory's secret: for tests that play the gateway.
import { createSecretKey } from 'node:crypto';
import { mkdir, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { folderDlrKeys } from '../../src/journal/folder/dlr-keys.js';
import { campaignPaths, writeManifest } from '../../src/journal/folder/campaigns.js';
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

/**
 * A finished campaign in `stateDir`, sent with proofs, that wrote `reports`; returns its proof
 * maker. For tests that need a campaign's reports believed without sending one.
 */
export async function signedCampaign(
  stateDir: string,
  id: string,
  reports: string[] = [],
): Promise<(messageId: string) => string> {
  const key = (await folderDlrKeys(stateDir, true)).keys[0]!;
  const paths = campaignPaths(stateDir, id);
  await mkdir(paths.dir, { recursive: true });
  const at = '2026-01-01T00:00:00.000Z';
  await writeManifest(paths.manifest, {
    v: 1,
    id,
    named: false,
    contentHash: id,
    inputs: [],
    target: 'gateway',
    reports,
    createdAt: at,
    startedAt: at,
    updatedAt: at,
    status: 'finished',
    runs: 1,
    records: 0,
    counts: { accepted: 0, rejected: 0, invalid: 0, failed: 0, unknown: 0, skipped: 0 },
  });
  return (messageId) => proofFor({ key, campaign: id }, messageId);
}
