// Step one of a campaign: its inputs hashed and its identity, which names its state folder and
// makes its MessageIds (a follow-up brings its own).
import type { InputFile } from '../../input/open.js';
import {
  campaignIdentity,
  contentHash,
  expandCampaignName,
  type CampaignIdentity,
  type CampaignShape,
} from '../../journal/identity.js';
import type { InputDigests } from '../../journal/input-digests.js';
import { UsageError } from '../../shared/errors.js';
import { identitySettings, type InputSettings } from './implied.js';
import type { CampaignRequest } from '../types.js';

/**
 * The inputs' digests and sizes, in order, each remembered from an earlier run when its file is
 * the one hashed then (see InputDigests); a missing or unreadable input is exit 2.
 */
export async function hashInputs(
  files: InputFile[],
  digests: InputDigests,
): Promise<{ sha256: string; bytes: number }[]> {
  const hashes = [];
  for (const file of files) {
    try {
      hashes.push(await digests.digest(file.path));
    } catch (error) {
      const e = error as NodeJS.ErrnoException;
      const reason =
        e.code === 'ENOENT'
          ? 'the input file does not exist'
          : e.code === 'EISDIR'
            ? 'is a directory, not a file'
            : `cannot read (${e.code ?? e.message})`;
      throw new UsageError(`${file.label}: ${reason}`, 'input', undefined, [
        { file: file.label, reason },
      ]);
    }
  }
  return hashes;
}

/**
 * Who the campaign is, and how it makes its messages (the manifest keeps the settings as given:
 * a follow-up rebuilds the messages with them).
 */
export async function identify(
  request: CampaignRequest,
  hashes: readonly { sha256: string; bytes: number }[],
): Promise<{ identity: CampaignIdentity; shape: CampaignShape }> {
  const { settings, files, followUp } = request;
  const given = {
    inputFormat: request.inputFormat,
    delimiter: request.delimiter,
    mapping: request.mapping,
  };
  const shapeOf = (input: InputSettings): CampaignShape => ({
    target: request.simulate ? 'simulator' : 'gateway',
    mapping: input.mapping,
    template: request.template,
    inputFormat: input.inputFormat,
    delimiter: input.delimiter,
    country: settings.country,
    defaults: settings.defaults,
    // Only when on, so the IDs of campaigns from before the flag existed stay as they were.
    gsmNormalize: settings.gsmNormalize || undefined,
  });
  const name =
    settings.campaign === undefined
      ? undefined
      : expandCampaignName(settings.campaign, files[0]!.label, request.now);
  const shape = followUp?.shape ?? shapeOf(given);
  const identity =
    followUp?.identity ??
    campaignIdentity(
      contentHash(
        hashes,
        shapeOf(await identitySettings(files, given, request.template !== undefined)),
      ),
      name,
    );
  return { identity, shape };
}
