// Step five of a campaign: wait for its send window to open (or end at once, exit 5, with --no-wait),
// holding the campaign's lock but before it is marked running: a run stopped while it waits has
// sent nothing and leaves the campaign as it found it.
import { awaitWindow } from '../../send/schedule.js';
import { InterruptedError, leadingTo } from '../../shared/errors.js';
import type { CampaignRun } from '../run.js';

export async function waitForWindow(run: CampaignRun): Promise<void> {
  const window = run.settings.sendWindow;
  if (!window || (await awaitWindow(window, run))) return;
  // The campaign is as it was: the same command waits again.
  throw leadingTo(
    new InterruptedError('interrupted while waiting for the send window: nothing was sent'),
    { say: 'Wait for it again' },
  );
}
