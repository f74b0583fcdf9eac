// The planned campaign the caller is shown before anything is sent: who it is, what its plan
// refuses, and which state refusal a dry run reports (a real run is refused elsewhere, never here).
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { look } from '../../../src/campaign/steps/claim.js';
import { identify } from '../../../src/campaign/steps/identify.js';
import { planned } from '../../../src/campaign/steps/planned.js';
import { validationPass } from '../../../src/campaign/steps/validation-pass.js';
import type { CampaignRun } from '../../../src/campaign/run.js';
import type { Identified } from '../../../src/campaign/steps/identify.js';
import { closeState } from '../../../src/journal/open-store.js';
import { UsageError } from '../../../src/shared/errors.js';
import type { Plan } from '../../../src/validate/plan.js';
import { FakeClock } from '../../helpers/clock.js';
import { tempDir, writeCampaignCsv } from '../../helpers/files.js';
import { stepRun, withClaim } from '../../helpers/step-run-2.js';

const AT = Date.parse('2025-03-04T10:00:00Z');
let dir: Awaited<ReturnType<typeof tempDir>>;
beforeEach(async () => {
  dir = await tempDir();
  await writeCampaignCsv(join(dir.path, 'in.csv'), 4);
});
afterEach(async () => {
  await dir.remove();
});

function runOf(flags: string[] = []): Promise<CampaignRun> {
  return stepRun(['in.csv', ...flags], {
    cwd: dir.path,
    stateDir: join(dir.path, 'state'),
    clock: new FakeClock(AT),
  });
}

/** The plan of the campaign's four records, as the validation pass makes it. */
async function planOf(run: CampaignRun, identified: Identified): Promise<Plan> {
  const { plan } = await validationPass(run, {
    identity: identified.identity,
    suppression: identified.suppression,
    sentBy: [],
    seenBy: [],
    template: identified.template,
    spool: undefined,
    spooling: false,
    settled: () => false,
  });
  return plan;
}

const inTheWay = new UsageError('the state says no', 'already-sent');
const related = new UsageError('a relative says no', 'usage');

describe('planned', () => {
  it('is the campaign as identified, with the parts the steps before it worked out', async () => {
    const run = await runOf();
    await withClaim(run, async ({ identified, hold }) => {
      const plan = await planOf(run, identified);
      const campaign = planned(run, identified, hold, { plan, toSend: 3, resuming: true });
      expect(campaign.identity).toBe(identified.identity);
      expect(campaign.identity.id).toMatch(/^[0-9a-z-]+$/);
      expect(campaign.reportPath).toBe(join(dir.path, 'report.csv'));
      expect(campaign.shape).toBe(identified.shape);
      expect(campaign.hashes).toEqual(identified.hashes);
      expect(campaign.plan.valid).toBe(4);
      expect(campaign.toSend).toBe(3);
      expect(campaign.resuming).toBe(true);
      expect(campaign.followUp).toBe(false);
      expect(campaign.notes).toBe(hold.notes);
      // The tally runs on the run's clock: its rate starts from the run's own time.
      expect(campaign.tally.startedAt).toBe(AT);
      expect(campaign.tally.total).toBe(0);
    });
  });

  it.each([
    // what, change to the plan, flags, refusal
    ['a plan that may be sent', {}, [], undefined],
    ['invalid records', { invalid: 1 }, [], 'invalid-input'],
    ['invalid records with --skip-invalid', { invalid: 1 }, ['--skip-invalid'], undefined],
    [
      'a file problem, even with --skip-invalid',
      { fileProblems: [{}] },
      ['--skip-invalid'],
      'invalid-input',
    ],
    ['no records', { records: 0 }, [], 'empty-input'],
  ] as const)('takes the refusal of %s from the plan', async (_what, change, flags, refusal) => {
    const run = await runOf([...flags]);
    await withClaim(run, async ({ identified, hold }) => {
      const plan = { ...(await planOf(run, identified)), ...change } as Plan;
      const campaign = planned(run, identified, hold, { plan, toSend: 4, resuming: false });
      expect(campaign.refusal).toBe(refusal);
    });
  });

  it("leaves a real run's refusals to the steps that throw them", async () => {
    const run = await runOf();
    await withClaim(run, async ({ identified, hold }) => {
      const plan = await planOf(run, identified);
      const parts = { plan, toSend: 4, resuming: false, relatedRefusal: related };
      const campaign = planned(run, identified, hold, parts);
      expect(campaign.stateRefusal).toBeUndefined();
      expect(campaign.relatedRefusal).toBe(related);
    });
  });

  it.each([
    ['the state refuses', inTheWay, undefined, inTheWay],
    ['the state and a relative refuse: the state first', inTheWay, related, inTheWay],
    ['only a relative refuses', undefined, related, related],
    ['nothing refuses', undefined, undefined, undefined],
  ] as const)(
    'a dry run says what a real run is refused with: %s',
    async (_w, state, rel, says) => {
      const run = await runOf(['--dry-run']);
      try {
        const identified = await identify(run);
        const looked = { ...(await look(run, identified)), refusal: state };
        const plan = await planOf(run, identified);
        const parts = { plan, toSend: 4, resuming: false, ...(rel ? { relatedRefusal: rel } : {}) };
        const campaign = planned(run, identified, looked, parts);
        expect(campaign.stateRefusal).toBe(says);
        expect(campaign.relatedRefusal).toBe(rel);
      } finally {
        await closeState(run);
      }
    },
  );
});
