// A run as the terminal shows it: the validation's progress, the plan's warnings and notes, the
// send's progress line, Ctrl-C and SIGTERM, each wired to the run's events. Printing only; the
// run itself is the core's.
import type { RunIo } from '../../campaign/run.js';
import type { PlannedCampaign } from '../../campaign/types.js';
import { SendEmitter } from '../../send/events.js';
import { systemClock } from '../../shared/clock.js';
import { colorFor } from './color.js';
import { showProgress, showValidationProgress, type Progress } from './progress.js';
import { renderStopping, watchSignals, type SignalWatch } from './signals.js';
import { renderWaiting } from './window.js';

/** How the command was asked to show the run. */
export interface ViewFlags {
  json?: boolean;
  quiet?: boolean;
  verbose?: boolean;
  progressInterval?: number;
  simulate?: boolean;
}

export class RunView {
  /** The run's io: its events, the system's clock, the signals Ctrl-C and SIGTERM abort. */
  readonly io: RunIo;
  private readonly signals: SignalWatch;
  private readonly validation;
  private progress: Progress | undefined;
  private windowOpensAt = 0;

  constructor(private readonly flags: ViewFlags) {
    const events = new SendEmitter();
    const quiet = flags.quiet === true || flags.json === true;
    // The validation pass reads every record before the first is sent: long enough on a big file
    // that silence would look like a hang.
    this.validation = showValidationProgress({
      intervalSeconds: flags.progressInterval ?? 10,
      quiet,
    });
    events.on('validated', this.validation.read);
    // While the run waits for its send window nothing is in flight, and a stop says so.
    events.on('waiting', (wait) => (this.windowOpensAt = wait.opensAt));
    this.signals = watchSignals({
      first: (signal) =>
        this.say(
          renderStopping({ signal, waitingForWindow: systemClock.now() < this.windowOpensAt }),
        ),
      second: () => this.say('abandoning the batches in flight'),
    });
    this.io = { events, clock: systemClock, stop: this.signals.stop, abort: this.signals.abort };
    this.wire(events);
  }

  private wire(events: SendEmitter): void {
    const err = colorFor('stderr');
    const { flags } = this;
    // Problems that do not stop the run (a page or timeline not kept) are said under any mode.
    events.on('warning', (message) => this.say(err.yellow(`warning: ${message}`), true));
    // Said as it happens (a rehearsal set aside as the run starts); under --json on stderr.
    if (!flags.quiet) events.on('note', (line) => this.say(line));
    // Under --json stdout holds only the final document; a run that waits for hours says so on
    // stderr rather than look hung. --quiet prints only errors.
    if (flags.json && !flags.quiet) {
      events.on('waiting', (wait) => process.stderr.write(`${renderWaiting(wait)}\n`));
    }
  }

  /**
   * The campaign is planned: the validation's line ends, the plan's warnings (with --quiet too:
   * what looks mistyped is seen before anything is sent) and notes are said, and the send's
   * progress line starts.
   */
  planned(campaign: PlannedCampaign): void {
    this.validation.stop();
    const err = colorFor('stderr');
    for (const { file, message } of campaign.plan.warnings) {
      process.stderr.write(err.yellow(`warning: ${file}: ${message}\n`));
    }
    if (!this.flags.quiet) for (const note of campaign.notes) process.stderr.write(`${note}\n`);
  }

  /** The send's progress line, from the campaign's tally, once the caller has confirmed. */
  sending(campaign: PlannedCampaign, endpoint: string, timeoutMs: number): void {
    const { flags } = this;
    this.progress = showProgress(this.io.events, campaign.tally, {
      label: flags.simulate ? 'simulating' : 'sending',
      total: campaign.toSend,
      intervalSeconds: flags.progressInterval ?? 10,
      quiet: flags.quiet === true || flags.json === true,
      verbose: flags.verbose === true,
      endpoint,
      timeoutMs,
    });
  }

  /** A line for the operator, above the progress line when one is drawn; `always`: under --quiet too. */
  private say(line: string, always = false): void {
    const { flags } = this;
    const drawn = this.progress && !flags.quiet && !flags.json;
    if (drawn) this.progress!.note(line);
    else if (always || !flags.quiet) process.stderr.write(`${line}\n`);
  }

  dispose(): void {
    this.validation.stop();
    this.progress?.stop();
    this.signals.dispose();
  }
}
