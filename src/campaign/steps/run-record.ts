// A run's record for the campaign's page (its timeline), kept in the campaign's store as the run
// goes and once more as it ends: a run killed on one host is still told on every other.
import { hostname } from 'node:os';
import type { TimelineRecorder } from '../../report/html/recorder.js';
import { describeSystemError } from '../../shared/errors.js';
import type { CampaignRun } from '../run.js';
import type { RunHold } from './hold.js';

/** How long a run's kept record may lag behind it while batches are answered. */
const KEEP_EVERY_MS = 5_000;

/** Keeps one run's record, at most every KEEP_EVERY_MS as batches are answered, one write at a time. */
export class RunKeeper {
  private readonly key: string;
  private keeping: Promise<void> = Promise.resolve();
  private keptAt = Number.NEGATIVE_INFINITY;
  private warned = false;
  private done = false;

  constructor(
    private readonly run: CampaignRun,
    private readonly hold: RunHold,
    private readonly timeline: TimelineRecorder,
    private readonly sentTo: string,
  ) {
    this.key = `${hostname()} pid ${process.pid} at ${run.io.clock.now()}`;
    run.io.events.on('batch', () => {
      if (!this.done && run.io.clock.now() - this.keptAt >= KEEP_EVERY_MS) void this.keep();
    });
  }

  /** The record as it stands once the run has ended: kept after any write still under way. */
  async finish(): Promise<void> {
    this.done = true;
    await this.keep();
  }

  /**
   * Kept after the write before it; a run that sent nothing keeps nothing. A failure is said once:
   * the page's charts depend on it, never what the run sends or how it ends.
   */
  private keep(): Promise<void> {
    this.keptAt = this.run.io.clock.now();
    this.keeping = this.keeping.then(async () => {
      const data = this.timeline.run(this.sentTo);
      if (!data) return;
      await this.hold.claim
        .keepRun({ key: this.key, host: hostname(), data })
        .catch((error: unknown) => this.warn(error));
    });
    return this.keeping;
  }

  private warn(error: unknown): void {
    if (this.warned) return;
    this.warned = true;
    this.run.io.events.emit(
      'warning',
      `the run's timeline was not kept: ${describeSystemError(error)}`,
    );
  }
}
