// Campaign state that cannot be written mid-send (a full disk): the run stops with exit 6 and a
// message that says what was settled and the command that finishes it; that command, run once
// there is room, finishes the campaign with nothing sent twice. The simulator cannot fill a disk,
// so the fault is put into the journal's appender.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type * as Appender from '../../src/journal/appender.js';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';
import { parseCsv, tempDir, writeCampaignCsv } from '../helpers/files.js';
import { runInProcess } from '../helpers/in-process.js';
import { countOutcomes, promiseBreaches } from '../helpers/reliability.js';

/** Which journal line fails first; from then on every append fails, as on a full disk. */
const fault = vi.hoisted(() => ({ kind: '', nth: 0, seen: 0, failing: false, armed: false }));

vi.mock('../../src/journal/appender.js', async (importOriginal) => {
  const real = await importOriginal<typeof Appender>();
  class FullDisk extends real.LineAppender {
    override append(line: string, options?: { sync?: boolean }): Promise<void> {
      if (fault.armed && line.startsWith(`{"t":"${fault.kind}"`) && ++fault.seen === fault.nth) {
        fault.failing = true;
      }
      if (fault.armed && fault.failing) {
        const error = Object.assign(new Error('ENOSPC: no space left on device, write'), {
          code: 'ENOSPC',
        });
        return Promise.reject(error);
      }
      return super.append(line, options);
    }
  }
  return { ...real, LineAppender: FullDisk };
});

const RECORDS = 60;
let dir: Awaited<ReturnType<typeof tempDir>>;
let sim: Simulator;

beforeEach(async () => {
  dir = await tempDir();
  sim = await startSimulator();
});

const ENV = { SMS_SEND_USERNAME: 'tester', SMS_SEND_PASSWORD: 'not-a-secret' };

afterEach(async () => {
  Object.assign(fault, { armed: false, failing: false, seen: 0 });
  await sim.stop();
  await dir.remove();
});

describe('a journal that cannot be written mid-send', () => {
  it.each([
    // The third batch's intent cannot be recorded: it never goes out.
    { line: 'send', nth: 3, settled: 20, resumed: { accepted: RECORDS } },
    // The second batch went out, but its answer cannot be recorded: on resume it reads as sent
    // without an answer (unknown), and is not sent again.
    { line: 'done', nth: 2, settled: 20, resumed: { accepted: RECORDS - 10, unknown: 10 } },
  ])(
    'the $nth $line line fails: exit 6, what was settled, and the command that finishes it',
    async ({ line, nth, settled, resumed }) => {
      const input = join(dir.path, 'campaign.csv');
      await writeCampaignCsv(input, RECORDS);
      const report = join(dir.path, 'campaign.report.csv');
      const args = [input, '--endpoint', sim.url, '--batch-size', '10', '--concurrency', '1'];
      Object.assign(fault, { kind: line, nth, armed: true });
      const stopped = await runInProcess(args, { env: ENV });
      expect(stopped.code, stopped.stderr).toBe(6);
      expect(stopped.stderr).toContain(
        'campaign state could not be written: ENOSPC: no space left on device, write: ' +
          `${settled} records settled and kept, ${RECORDS - settled} records not sent. ` +
          'Once there is room, finish the campaign with:\n',
      );
      expect(stopped.stderr).not.toContain('unexpected error');
      // Run from a clone, where the shell does not find sms-send: the command says npx.
      const command = /with:\n {2}npx sms-send (.+)\n/.exec(stopped.stderr)?.[1]?.split(' ');
      expect(command).toEqual([...args, '--resume']);
      const sentBefore = sim.ledger.length;

      // Room again: the printed command finishes the campaign.
      Object.assign(fault, { armed: false, failing: false });
      const finished = await runInProcess(command!, { env: ENV });
      expect(finished.code, finished.stderr).toBe(resumed.unknown ? 1 : 0);
      const rows = parseCsv(await readFile(report, 'utf8'));
      expect(promiseBreaches(rows, RECORDS, sim.ledger)).toEqual([]);
      expect(countOutcomes(rows)).toEqual(resumed);
      expect(sim.ledger.length - sentBefore).toBe(RECORDS - settled);
    },
  );
});
