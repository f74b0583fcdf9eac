// The original campaign a follow-up re-sends from: found, checked re-sendable, held while its rows are re-sent.
import { BARE_PROGRAM, commandText, type Program } from '../../shared/shell.js';
import { resolve as resolvePath } from 'node:path';
import { LockedError, UsageError } from '../../shared/errors.js';
import type { InputFile } from '../../input/open.js';
import { hashFile, type CampaignShape } from '../../journal/identity.js';
import type { Lock } from '../../journal/lock.js';
import type { CampaignEntry } from '../../journal/store.js';
import type { CampaignStore } from '../../journal/store.js';
import { exists, isFile } from '../../shared/files.js';
import type { FollowUp } from '../types.js';
import type { RetryRequest } from './types.js';
import { rowsResent } from './rows.js';
import { findCampaign } from '../../journal/lookup.js';

/** The original's shape, once it is known that its records can be re-sent faithfully. */
export async function retryable(
  original: CampaignEntry,
  request: RetryRequest,
): Promise<CampaignShape> {
  const { manifest, status } = original;
  if (status === 'running') {
    throw new LockedError(
      `campaign ${manifest.id} is being sent by another run; retry it once that run has finished. Nothing was sent.`,
    );
  }
  if (status !== 'finished') {
    throw new UsageError(
      `campaign ${manifest.id} is ${status}: finish it with --resume first, then retry what it could not send. Nothing was sent.`,
      'unfinished',
    );
  }
  const shape = manifest.shape;
  if (!shape) {
    throw new UsageError(
      `campaign ${manifest.id}: its state does not record how its messages were made, so they ` +
        'cannot be rebuilt. Nothing was sent.',
      'not-retryable',
    );
  }
  if (manifest.target === 'simulator' && !request.simulate) {
    throw new UsageError(
      `campaign ${manifest.id} was tried on the simulator: nothing of it reached a gateway. ` +
        'Retry it with --simulate, or send its input for real. Nothing was sent.',
      'not-retryable',
    );
  }
  for (const input of manifest.inputs) {
    if (input.path === '-') {
      throw new UsageError(
        `campaign ${manifest.id} read standard input, which cannot be read again to rebuild its messages. Nothing was sent.`,
        'not-retryable',
      );
    }
    if (!(await exists(input.path))) {
      throw new UsageError(
        `campaign ${manifest.id}'s input ${input.path} no longer exists: a follow-up re-sends ` +
          'records from the original inputs. Nothing was sent.',
        'input-changed',
      );
    }
    // Checked here too, not only as the follow-up is prepared: a changed input is worth saying
    // even when there is nothing to re-send.
    if ((await hashFile(input.path)).sha256 !== input.sha256)
      throw inputChanged(input.path, manifest.id);
  }
  return shape;
}

export async function findOriginal(
  request: RetryRequest,
): Promise<{ original: CampaignEntry; report: string }> {
  const { store, campaign, program = BARE_PROGRAM } = request;
  if (await isFile(campaign)) {
    const path = resolvePath(campaign);
    const original = (await store.campaigns()).find((e) => e.manifest.reports.includes(path));
    if (!original) {
      throw new UsageError(
        `no campaign in ${store.where} wrote the report ${campaign}; name the campaign by its ID (${commandText(program, ['campaigns'])})`,
        'campaign-unknown',
      );
    }
    const newest = original.manifest.reports.at(-1)!;
    if (newest !== path) {
      throw new UsageError(
        `${campaign} is an earlier report of campaign ${original.manifest.id}; its complete report is ${newest}`,
        'campaign-unknown',
      );
    }
    return { original, report: path };
  }
  const original = await findCampaign(store, campaign);
  const report = original.manifest.reports.at(-1);
  if (report === undefined || !(await isFile(report))) {
    throw new UsageError(
      `campaign ${original.manifest.id}'s report ${report ?? ''} does not exist: a follow-up chooses its records from it`,
      'no-report',
    );
  }
  return { original, report };
}

/**
 * Holds the original campaign while a follow-up of it runs: another follow-up, or a --resume of
 * the original, waits for nobody (exit 4). Rows another follow-up re-sent since this one chose
 * its rows are refused: choosing again leaves them out.
 */
export async function holdOriginal(
  store: CampaignStore,
  followUp: FollowUp,
  program: Program = BARE_PROGRAM,
): Promise<Lock> {
  const of = followUp.of.of;
  const lock = await store.hold(of, 're-sending its records in a follow-up');
  try {
    const target = followUp.shape.target;
    const resent = await rowsResent(store, of, target, {
      except: followUp.identity.id,
      program,
    });
    for (const row of followUp.rows.keys()) {
      const by = resent.get(row);
      if (by !== undefined) {
        throw new UsageError(
          `follow-up ${by} re-sent records of campaign ${of} while this one was being prepared; ` +
            `run ${commandText(program, ['retry', of])} again to choose what is left. Nothing was sent.`,
          'unfinished',
        );
      }
    }
    return lock;
  } catch (error) {
    await lock.release();
    throw error;
  }
}

/** The original inputs must be the bytes the campaign was sent from, or its rows mean other records. */
export function checkInputsUnchanged(
  files: readonly InputFile[],
  hashes: readonly { sha256: string; bytes: number }[],
  followUp: FollowUp,
): void {
  followUp.inputs.forEach((input, i) => {
    if (hashes[i]?.sha256 === input.sha256 && files[i]?.path === input.path) return;
    throw inputChanged(input.path, followUp.of.of);
  });
}

function inputChanged(path: string, campaign: string): UsageError {
  return new UsageError(
    `${path} has changed since campaign ${campaign} was sent from it, so its rows no longer ` +
      'match the report; nothing was sent. Send the changed file as a campaign of its own.',
    'input-changed',
  );
}
