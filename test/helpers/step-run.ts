// A campaign run for one step's tests, built as the command builds one (settings resolved, then
// campaignRun), its state in the test's own folder; and earlier campaigns sent in full, whose
// state the step then reads.
import { writeFile } from 'node:fs/promises';
import { afterEach, beforeEach } from 'vitest';
import { join, resolve } from 'node:path';
import { campaignRun, inputFiles, type CampaignChoices } from '../../src/campaign/run.js';
import type { CampaignRun } from '../../src/campaign/run.js';
import { sendCampaign, type SentCampaign } from '../../src/campaign/steps/index.js';
import { resolveSettings } from '../../src/config/resolve.js';
import { closeState } from '../../src/journal/open-store.js';
import { memoryDir, mobile } from './files.js';
import { startGateway, type TestGateway } from './gateway.js';

export interface StepRunOptions {
  /** Input files, found from the folder: `list.csv` unless given. */
  inputs?: string[];
  /** The report is found from the folder, as inputs are: `report.csv` unless given. */
  choices?: CampaignChoices;
  /** Settings by their config keys (`campaign`, `retries`, `batchSize`...), as flags give them. */
  settings?: Record<string, unknown>;
  template?: string;
}

/** A run in `dir`, its state in `dir/state`, sending to `endpoint` (a loopback server). */
export async function stepRun(
  dir: string,
  endpoint: string,
  options: StepRunOptions = {},
): Promise<CampaignRun> {
  const settings = await resolveSettings({
    cwd: dir,
    env: { SMS_SEND_STATE_DIR: join(dir, 'state'), SMS_SEND_USERNAME: 'u', SMS_SEND_PASSWORD: 'p' },
    flags: { endpoint, batchSize: 10, concurrency: 1, ...options.settings },
  });
  return campaignRun({
    inputs: inputFiles(options.inputs ?? ['list.csv'], { cwd: dir }),
    settings,
    choices: { ...options.choices, report: resolve(dir, options.choices?.report ?? 'report.csv') },
    ...(options.template === undefined ? {} : { template: options.template }),
  });
}

/** Sends a run through every step, as the command does (its state closed after). */
export async function sendRun(
  dir: string,
  endpoint: string,
  options: StepRunOptions = {},
): Promise<SentCampaign> {
  return sendCampaign(await stepRun(dir, endpoint, options));
}

/** `count` records at `dir/file`, row r to mobile(r); `texts` replaces the text of rows (1-based). */
export async function writeList(
  dir: string,
  count: number,
  texts: Record<number, string> = {},
  file = 'list.csv',
): Promise<void> {
  const lines = ['to,text'];
  for (let row = 1; row <= count; row++) lines.push(`${mobile(row)},${texts[row] ?? `Hi ${row}`}`);
  await writeFile(join(dir, file), `${lines.join('\n')}\n`);
}

/**
 * A test file's folder of `records` records and its loopback gateway, made before each test; after
 * it, the runs the test opened (`open`) are closed, the gateway too, and the folder removed. The
 * state directory is a real one, in memory: earlier campaigns' syncs would only add waiting.
 */
export class StepFolder {
  dir!: Awaited<ReturnType<typeof memoryDir>>;
  gateway!: TestGateway;
  readonly open: CampaignRun[] = [];

  constructor(records: number) {
    beforeEach(async () => {
      this.dir = await memoryDir();
      this.gateway = await startGateway();
      await writeList(this.dir.path, records);
    });
    afterEach(async () => {
      for (const run of this.open.splice(0)) await closeState(run);
      await this.gateway.close();
      await this.dir.remove();
    });
  }
}
