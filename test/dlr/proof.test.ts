// Which delivery reports are believed: a valid proof for a campaign that wrote the report, nothing else.
import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DeliveryReport } from '../../src/dlr/matching.js';
import { DlrVerifier } from '../../src/dlr/proof.js';
import { systemClock } from '../../src/shared/clock.js';
import { folderDlrKeys } from '../../src/journal/folder/dlr-keys.js';
import { campaignPaths, writeManifest } from '../../src/journal/folder/campaigns.js';
import type { Manifest } from '../../src/journal/manifest.js';
import { CANARY, proofFor } from '../../src/shared/dlr-proof.js';
import { tempDir } from '../helpers/files.js';
import { folderStoreAt } from '../helpers/state.js';

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

async function campaign(id: string, reports: string[]): Promise<void> {
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
    const key = (await folderDlrKeys(stateDir, true)).keys[0]!;
    await campaign('aaaa', [report]);
    await campaign('bbbb', [join(dir.path, 'other.csv')]);
    const verify = (
      await DlrVerifier.open({
        store: folderStoreAt(stateDir),
        reportPath: report,
        clock: systemClock,
      })
    ).verify;
    const own = proofFor({ key, campaign: 'aaaa' }, 'aaaa-1');
    expect(await verify(dlr('aaaa-1', own))).toEqual({ ok: true, campaign: 'aaaa' });
    expect(await verify(dlr('aaaa-1'))).toEqual({ ok: false, reason: 'unsigned' });
    expect(await verify(dlr('aaaa-2', own))).toEqual({ ok: false, reason: 'bad signature' });
    // One character of the proof changed (never to itself).
    const tampered = `${own[0] === 'A' ? 'B' : 'A'}${own.slice(1)}`;
    expect(await verify(dlr('aaaa-1', tampered))).toEqual({
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
    const key = (await folderDlrKeys(stateDir, true)).keys[0]!;
    await campaign('aaaa', [join(dir.path, 'original.csv')]);
    const verify = (
      await DlrVerifier.open({
        store: folderStoreAt(stateDir),
        reportPath: report,
        clock: systemClock,
      })
    ).verify;
    const proof = proofFor({ key, campaign: 'aaaa' }, 'aaaa-1');
    expect(await verify(dlr('aaaa-1', proof))).toEqual({ ok: true, campaign: 'aaaa' });
  });

  it('reads a secret made after it started (a receiver started before the first send)', async () => {
    const verify = (
      await DlrVerifier.open({
        store: folderStoreAt(stateDir),
        reportPath: report,
        clock: systemClock,
      })
    ).verify;
    const key = (await folderDlrKeys(stateDir, true)).keys[0]!;
    await campaign('aaaa', [report]);
    const proof = proofFor({ key, campaign: 'aaaa' }, 'aaaa-1');
    const verdicts = await Promise.all([
      verify(dlr('aaaa-1', proof)),
      verify(dlr('aaaa-1', proof)),
    ]);
    expect(verdicts).toEqual([
      { ok: true, campaign: 'aaaa' },
      { ok: true, campaign: 'aaaa' },
    ]);
  });

  it('refuses every report without a proof, whatever campaign wrote the report', async () => {
    await campaign('old1', [report]);
    const verifier = await DlrVerifier.open({
      store: folderStoreAt(stateDir),
      reportPath: report,
      clock: systemClock,
    });
    expect(await verifier.verify(dlr('old1-1'))).toEqual({ ok: false, reason: 'unsigned' });
  });

  it('without a report (a receiver that keeps reports in the store), takes any campaign of the store, naming it', async () => {
    const key = (await folderDlrKeys(stateDir, true)).keys[0]!;
    await campaign('aaaa', [report]);
    await campaign('bbbb', [join(dir.path, 'other.csv')]);
    const { verify } = await DlrVerifier.open({
      store: folderStoreAt(stateDir),
      clock: systemClock,
    });
    const forA = proofFor({ key, campaign: 'aaaa' }, 'aaaa-1');
    const forB = proofFor({ key, campaign: 'bbbb' }, 'bbbb-1');
    const forGone = proofFor({ key, campaign: 'cccc' }, 'cccc-1');
    expect(await verify(dlr('aaaa-1', forA))).toEqual({ ok: true, campaign: 'aaaa' });
    expect(await verify(dlr('bbbb-1', forB))).toEqual({ ok: true, campaign: 'bbbb' });
    expect(await verify(dlr('cccc-1', forGone))).toEqual({ ok: false, reason: 'unknown id' });
    expect(await verify(dlr('bbbb-1', forA))).toEqual({ ok: false, reason: 'bad signature' });
  });

  it("takes a canary's proof with no campaign in the store, and only when the store's key made it", async () => {
    const key = (await folderDlrKeys(stateDir, true)).keys[0]!;
    const other = (await folderDlrKeys(join(dir.path, 'elsewhere'), true)).keys[0]!;
    const { verify } = await DlrVerifier.open({
      store: folderStoreAt(stateDir),
      clock: systemClock,
    });
    const proof = proofFor({ key, campaign: CANARY }, 'check-1');
    expect(await verify(dlr('check-1', proof, 'ENROUTE'))).toEqual({ ok: true, campaign: CANARY });
    expect(await verify(dlr('check-2', proof))).toEqual({ ok: false, reason: 'bad signature' });
    const foreign = proofFor({ key: other, campaign: CANARY }, 'check-1');
    expect(await verify(dlr('check-1', foreign))).toEqual({ ok: false, reason: 'bad signature' });
    expect(await verify(dlr('check-1', proof, 'no;status'))).toEqual({
      ok: false,
      reason: 'bad status',
    });
  });
});
