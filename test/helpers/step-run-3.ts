// A campaign brought to the door of one step of src/campaign/steps/: a real run (campaignRun, from a
// send command line), its state directory in a temp folder, and the steps before it taken for real.
import { readFile } from 'node:fs/promises';
import { afterEach, beforeEach } from 'vitest';
import { join } from 'node:path';
import {
  campaignRun,
  inputFiles,
  loadTemplate,
  type CampaignRun,
  type RunIo,
} from '../../src/campaign/run.js';
import { claim } from '../../src/campaign/steps/claim.js';
import { identify, type Identified } from '../../src/campaign/steps/identify.js';
import type { RunHold } from '../../src/campaign/steps/hold.js';
import type { Validated } from '../../src/campaign/steps/planned.js';
import { readSettled, type Settled } from '../../src/campaign/steps/settled.js';
import { validate } from '../../src/campaign/steps/validate.js';
import { sendCampaign, type SentCampaign } from '../../src/campaign/steps/index.js';
import { openGateway, type OpenGateway } from '../../src/campaign/target.js';
import { flagLayer } from '../../src/cli/gateway-settings.js';
import { resolveSettings } from '../../src/config/resolve.js';
import { campaignPaths, readManifest } from '../../src/journal/folder/campaigns.js';
import type { JournalLine } from '../../src/journal/lines.js';
import type { Manifest } from '../../src/journal/manifest.js';
import { closeState } from '../../src/journal/open-store.js';
import { SendEmitter } from '../../src/send/events.js';
import { injectDiskFault } from '../../src/shared/disk.js';
import { memoryDir, parseCsv, writeCampaignCsv } from './files.js';
import { startGateway, type TestGateway } from './gateway.js';
import { parseSendArgs } from './pipeline.js';

/** A test's folder: its campaign CSV, its state directory, its report, its loopback gateway. */
export interface StepDir {
  path: string;
  stateDir: string;
  input: string;
  report: string;
  gateway: TestGateway;
  remove(): Promise<void>;
}

/** In memory where it can be: a step's run syncs its state, and a disk's syncs only add waiting. */
export async function stepDir(records: number): Promise<StepDir> {
  const dir = await memoryDir();
  const input = join(dir.path, 'campaign.csv');
  await writeCampaignCsv(input, records);
  const gateway = await startGateway();
  return {
    path: dir.path,
    stateDir: join(dir.path, 'state'),
    input,
    report: join(dir.path, 'report.csv'),
    gateway,
    remove: async () => {
      await gateway.close();
      await dir.remove();
    },
  };
}

/** `sms-send campaign.csv ARGS --endpoint <gateway> --report <report>` as a run, not yet taken. */
export async function stepRun(
  dir: StepDir,
  args: readonly string[] = [],
  io: Partial<RunIo> = {},
): Promise<CampaignRun> {
  const { inputs, flags } = await parseSendArgs([
    'campaign.csv',
    '--endpoint',
    dir.gateway.url,
    '--report',
    dir.report,
    ...args,
  ]);
  const settings = await resolveSettings({
    cwd: dir.path,
    env: {
      SMS_SEND_STATE_DIR: dir.stateDir,
      SMS_SEND_USERNAME: 'tester',
      SMS_SEND_PASSWORD: 'not-a-secret',
    },
    flags: flagLayer(flags),
  });
  return campaignRun({
    inputs: inputFiles(inputs, { cwd: dir.path }),
    settings,
    choices: flags,
    template: await loadTemplate(flags.text, undefined),
    io: { events: new SendEmitter(), ...io },
  });
}

/** A run taken up to its send: identified, claimed, its settled rows read, validated. */
export interface Ready {
  run: CampaignRun;
  identified: Identified;
  hold: RunHold;
  settled: Settled;
  campaign: Validated;
  /** The gateway client, opened as the run opens it (the loopback gateway, or the simulator). */
  gateway: OpenGateway;
  close(): Promise<void>;
}

export async function ready(run: CampaignRun): Promise<Ready> {
  const identified = await identify(run);
  const hold = await claim(run, identified);
  try {
    const settled = await readSettled(run, identified, hold);
    const campaign = await validate(run, identified, hold, settled);
    const gateway = await openGateway(run.access!, run);
    return {
      run,
      identified,
      hold,
      settled,
      campaign,
      gateway,
      close: async () => {
        await gateway.close();
        await hold.close();
        await closeState(run);
      },
    };
  } catch (error) {
    await hold.close();
    await closeState(run);
    throw error;
  }
}

/** A whole run through the one path to the gateway: an earlier run a step's run follows. */
export async function sendWhole(dir: StepDir, args: readonly string[] = []): Promise<SentCampaign> {
  return sendCampaign(await stepRun(dir, args));
}

export function manifestOf(dir: StepDir, id: string): Promise<Manifest | undefined> {
  return readManifest(campaignPaths(dir.stateDir, id).manifest);
}

/** The journal's lines as they are on the disk. */
export async function journalLines(dir: StepDir, id: string): Promise<JournalLine[]> {
  const text = await readFile(campaignPaths(dir.stateDir, id).journal, 'utf8');
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as JournalLine);
}

export async function reportRows(path: string): Promise<Record<string, string>[]> {
  const rows = parseCsv(await readFile(path, 'utf8'));
  return rows.sort((a, b) => Number(a.row) - Number(b.row));
}

/**
 * A test file's step folder of `records` records, made before each test; after it, any disk fault
 * is lifted, what the test took (`taken`) is let go, and the folder removed.
 */
export class StepFixture {
  dir!: StepDir;
  taken: Ready | undefined;

  constructor(records: number) {
    beforeEach(async () => {
      this.dir = await stepDir(records);
    });
    afterEach(async () => {
      injectDiskFault(undefined);
      await this.taken?.close();
      this.taken = undefined;
      await this.dir.remove();
    });
  }
}
