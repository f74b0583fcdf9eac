// Which delivery reports are believed: a valid proof for a campaign that wrote the report, or --accept-unsigned for old campaigns.
import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DeliveryReport } from '../../src/dlr/matching.js';
import { DlrVerifier } from '../../src/dlr/proof.js';
import { UsageError } from '../../src/shared/errors.js';
import { loadDlrSecret } from '../../src/journal/dlr-secret.js';
import { campaignPaths, writeManifest, type Manifest } from '../../src/journal/state.js';
import { proofFor } from '../../src/shared/dlr-proof.js';
import { tempDir } from '../helpers/files.js';

let dir: Awaited<ReturnType<typeof tempDir>>;
let stateDir: string;
let report: string;

beforeEach(async () => {
  dir = await tempDir();
  stateDir = join(dir.path, 'state');
  report = join(dir.path, 'r.csv');
  await writeFile(report, 'row,messageId\n');
});
afterEach(() => dir.remove());

async function campaign(id: string, reports: string[], signed: boolean): Promise<void> {
  const paths = campaignPaths(stateDir, id);
  await mkdir(paths.dir, { recursive: true });
  const manifest = {
    v: 1,
    id,
    named: false,
    contentHash: id,
    inputs: [],
    target: 'simulator',
    reports: reports.map((r) => resolve(r)),
    createdAt: '2026-01-01T00:00:00Z',
    startedAt: '2026-01-01T00:00:00Z',
    updatedAt: '2026-01-01T00:00:00Z',
    status: 'finished',
    runs: 1,
    records: 1,
    counts: { accepted: 0, rejected: 0, invalid: 0, failed: 0, unknown: 1, skipped: 0 },
    ...(signed ? { signedDlr: true } : {}),
  } as Manifest;
  await writeManifest(paths.manifest, manifest);
}

function dlr(messageId: string, proof?: string, status = 'DELIVRD'): DeliveryReport {
  return {
    messageId,
    status,
    timestamp: undefined,
    transactionId: undefined,
    receivedAt: '2026-01-01T00:00:00Z',
    ...(proof === undefined ? {} : { proof }),
  };
}

describe('DlrVerifier', () => {
  it('takes a valid proof for a campaign of the report and refuses the rest, each with its reason', async () => {
    const key = await loadDlrSecret(stateDir);
    await campaign('aaaa', [report], true);
    await campaign('bbbb', [join(dir.path, 'other.csv')], true);
    const verify = (await DlrVerifier.open({ stateDir, reportPath: report })).verify;
    const own = proofFor({ key, campaign: 'aaaa' }, 'aaaa-1');
    expect(await verify(dlr('aaaa-1', own))).toEqual({ ok: true, signed: true });
    expect(await verify(dlr('aaaa-1'))).toEqual({ ok: false, reason: 'unsigned' });
    expect(await verify(dlr('aaaa-2', own))).toEqual({ ok: false, reason: 'bad signature' });
    expect(await verify(dlr('aaaa-1', `${own.slice(0, 20)}xx.aaaa`))).toEqual({
      ok: false,
      reason: 'bad signature',
    });
    // Genuine, but for another report's campaign: replayed here, it changes nothing.
    const foreign = proofFor({ key, campaign: 'bbbb' }, 'bbbb-1');
    expect(await verify(dlr('bbbb-1', foreign))).toEqual({ ok: false, reason: 'unknown id' });
    // Genuine, for a campaign that is not in the state directory (pruned).
    const gone = proofFor({ key, campaign: 'cccc' }, 'cccc-1');
    expect(await verify(dlr('cccc-1', gone))).toEqual({ ok: false, reason: 'unknown id' });
    expect(await verify(dlr('aaaa-1', own, '<script>'))).toEqual({
      ok: false,
      reason: 'bad status',
    });
  });

  it("takes a campaign's proofs for a copy of its report that no campaign wrote", async () => {
    const key = await loadDlrSecret(stateDir);
    await campaign('aaaa', [join(dir.path, 'original.csv')], true);
    const verify = (await DlrVerifier.open({ stateDir, reportPath: report })).verify;
    const proof = proofFor({ key, campaign: 'aaaa' }, 'aaaa-1');
    expect(await verify(dlr('aaaa-1', proof))).toEqual({ ok: true, signed: true });
  });

  it('reads a secret made after it started (a receiver started before the first send)', async () => {
    const verify = (await DlrVerifier.open({ stateDir, reportPath: report })).verify;
    const key = await loadDlrSecret(stateDir);
    await campaign('aaaa', [report], true);
    const proof = proofFor({ key, campaign: 'aaaa' }, 'aaaa-1');
    const verdicts = await Promise.all([
      verify(dlr('aaaa-1', proof)),
      verify(dlr('aaaa-1', proof)),
    ]);
    expect(verdicts).toEqual([
      { ok: true, signed: true },
      { ok: true, signed: true },
    ]);
  });

  it('takes unsigned reports with --accept-unsigned for a campaign sent before proofs', async () => {
    await campaign('old1', [report], false);
    const verifier = await DlrVerifier.open({ stateDir, reportPath: report, acceptUnsigned: true });
    expect(verifier.acceptsUnsigned).toBe(true);
    expect(await verifier.verify(dlr('old1-1'))).toEqual({ ok: true, signed: false });
    expect(await verifier.verify(dlr('old1-1', undefined, 'x'.repeat(40)))).toEqual({
      ok: false,
      reason: 'bad status',
    });
  });

  it('refuses --accept-unsigned for a report a campaign with proofs wrote, or one not written yet', async () => {
    await campaign('new1', [report], true);
    await expect(
      DlrVerifier.open({ stateDir, reportPath: report, acceptUnsigned: true }),
    ).rejects.toThrow(/campaign new1 wrote .* with proofs/);
    await expect(
      DlrVerifier.open({ stateDir, reportPath: join(dir.path, 'later.csv'), acceptUnsigned: true }),
    ).rejects.toThrow(UsageError);
  });

  it('stops taking unsigned reports once a campaign with proofs writes the report', async () => {
    const verifier = await DlrVerifier.open({ stateDir, reportPath: report, acceptUnsigned: true });
    expect(await verifier.verify(dlr('x-1'))).toEqual({ ok: true, signed: false });
    const key = await loadDlrSecret(stateDir);
    await campaign('new1', [report], true);
    const proof = proofFor({ key, campaign: 'new1' }, 'new1-1');
    expect(await verifier.verify(dlr('new1-1', proof))).toEqual({ ok: true, signed: true });
    expect(await verifier.verify(dlr('x-1'))).toEqual({ ok: false, reason: 'unsigned' });
  });
});
