// Step five on its own: what the validation plans and refuses (exit 2, with the numbers the user
// acts on), what it counts as left to send, and when a resume takes the kept spool instead.
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { refuse, validate } from '../../../src/campaign/steps/validate.js';
import { sendCampaign } from '../../../src/campaign/steps/index.js';
import { UsageError } from '../../../src/shared/errors.js';
import { startSimulator } from '../../../src/simulator/index.js';
import { mobile, tempDir, writeCampaignCsv } from '../../helpers/files.js';
import { stepRun, withClaim } from '../../helpers/step-run-2.js';

let dir: Awaited<ReturnType<typeof tempDir>>;
beforeEach(async () => {
  dir = await tempDir();
});
afterEach(async () => {
  await dir.remove();
});

/** A CSV of `valid` good records followed by `invalid` whose numbers cannot be sent. */
async function csv(name: string, valid: number, invalid = 0): Promise<string> {
  const lines = ['to,text'];
  for (let i = 0; i < valid; i++) lines.push(`${mobile(i)},Hello ${i}`);
  for (let i = 0; i < invalid; i++) lines.push(`12${i},Hello again ${i}`);
  await writeFile(join(dir.path, name), `${lines.join('\n')}\n`);
  return name;
}

/** `sms-send ARGV` validated as a real run does, then refused or not by refuse(). */
async function validated(argv: string[]) {
  const run = await stepRun(argv, { cwd: dir.path, stateDir: join(dir.path, 'state') });
  let records = 0;
  run.io.events.on('validated', (n: number) => (records = n));
  return withClaim(run, async ({ identified, hold, settled }) => {
    const campaign = await validate(run, identified, hold, settled);
    const refusal = (() => {
      try {
        refuse(run, campaign);
        return undefined;
      } catch (error) {
        return error;
      }
    })();
    return { campaign, refusal, records, stamped: existsSync(hold.local.spoolStamp) };
  });
}

describe('validate and refuse', () => {
  it.each([
    // name, valid, invalid, flags, refusal, to send
    ['valid records', 5, 0, [], undefined, 5],
    ['invalid records', 3, 2, [], 'invalid-input', 3],
    ['invalid records with --skip-invalid', 3, 2, ['--skip-invalid'], undefined, 3],
    ['a header alone', 0, 0, [], 'empty-input', 0],
  ] as const)('%s', async (_what, valid, invalid, flags, code, toSend) => {
    const input = await csv('in.csv', valid, invalid);
    const { campaign, refusal } = await validated([input, ...flags]);
    expect(campaign.refusal).toBe(code);
    expect(campaign.plan.valid).toBe(valid);
    expect(campaign.plan.invalid).toBe(invalid);
    expect(campaign.toSend).toBe(toSend);
    expect(campaign.resuming).toBe(false);
    if (code === undefined) {
      expect(refusal).toBeUndefined();
    } else {
      expect(refusal).toBeInstanceOf(UsageError);
      expect((refusal as UsageError).code).toBe(code);
      expect((refusal as UsageError).exitCode).toBe(2);
    }
  });

  it('says how many records of how many cannot be sent, each by its line', async () => {
    const input = await csv('in.csv', 3, 2);
    const { refusal } = await validated([input]);
    const message = (refusal as UsageError).message;
    expect(message).toContain('2 records of 5 cannot be sent:');
    expect(message).toMatch(/in\.csv:5: to: /);
    expect(message).toMatch(/in\.csv:6: to: /);
    expect(message).toContain('--skip-invalid');
  });

  it('names the input that has no records', async () => {
    const input = await csv('empty.csv', 0);
    const { refusal } = await validated([input]);
    expect((refusal as UsageError).message).toBe('empty.csv: no records to send');
  });

  it('refuses an estimate over --max-cost, saying both', async () => {
    const input = await csv('in.csv', 4);
    const prices = ['--price-per-segment', 'default=0.5', '--currency', 'NOK'];
    const over = await validated([input, ...prices, '--max-cost', '1.9']);
    expect(over.campaign.refusal).toBe('over-max-cost');
    expect((over.refusal as UsageError).code).toBe('over-max-cost');
    expect((over.refusal as UsageError).message).toMatch(
      /estimated cost .*2\.00.* \(4 segments of 4 messages\) is more than --max-cost .*1\.90/,
    );
    // At the limit is not over it.
    const at = await validated([input, ...prices, '--max-cost', '2', '--report', 'at.csv']);
    expect(at.campaign.refusal).toBeUndefined();
    expect(at.refusal).toBeUndefined();
  });

  it('keeps a complete spool for a later run only when the plan may be sent', async () => {
    const input = await csv('in.csv', 3, 1);
    expect((await validated([input])).stamped).toBe(false);
    const sendable = await validated([input, '--skip-invalid', '--report', 'skip.csv']);
    expect(sendable.stamped).toBe(true);
  });
});

describe('a resume', () => {
  const RECORDS = 30;

  /** A campaign of RECORDS sent in batches of 5 and stopped after the first batch. */
  async function stopped(input: string, stateDir: string) {
    const sim = await startSimulator();
    try {
      const stop = new AbortController();
      const run = await stepRun([input, '--batch-size', '5', '--concurrency', '1'], {
        cwd: dir.path,
        stateDir,
        stop: stop.signal,
        endpoint: sim.url,
      });
      run.io.events.on('batch', () => stop.abort());
      await sendCampaign(run);
      return { sent: sim.ledger.length };
    } finally {
      await sim.stop();
    }
  }

  it.each([
    ['the same settings take the kept spool', [], 0],
    ['another batch size validates again', ['--batch-size', '10'], RECORDS],
  ] as const)('%s', async (_what, flags, validatedAgain) => {
    await writeCampaignCsv(join(dir.path, 'in.csv'), RECORDS);
    const stateDir = join(dir.path, 'state');
    const first = await stopped('in.csv', stateDir);
    expect(first.sent).toBeGreaterThan(0);
    expect(first.sent).toBeLessThan(RECORDS);
    const run = await stepRun(['in.csv', '--resume', '--batch-size', '5', ...flags], {
      cwd: dir.path,
      stateDir,
    });
    let records = 0;
    run.io.events.on('validated', (n: number) => (records = n));
    const campaign = await withClaim(run, ({ identified, hold, settled }) =>
      validate(run, identified, hold, settled),
    );
    expect(records).toBe(validatedAgain);
    expect(campaign.resuming).toBe(true);
    expect(campaign.plan.valid).toBe(RECORDS);
    expect(campaign.toSend).toBe(RECORDS - first.sent);
  });
});
