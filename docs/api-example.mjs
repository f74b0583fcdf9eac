// docs/api.md's example, runnable: sends a campaign to a simulator started in this process and
// prints the summary's counts. Usage: node api-example.mjs [input.csv]
// (default: the sample campaign shipped with the package).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SendEmitter, send, startSimulator } from 'restsms-send';

const input =
  process.argv[2] ??
  fileURLToPath(new URL('../samples/campaign.csv', import.meta.resolve('restsms-send')));

// A gateway of our own, and a folder for the campaign's state and report: the example touches
// nothing of a real sms-send set-up and can be run again and again.
const simulator = await startSimulator();
const folder = await mkdtemp(join(tmpdir(), 'restsms-send-example-'));

const events = new SendEmitter();
events.on('batch', (batch) => console.error(`batch ${batch.batch}: ${batch.size} messages`));

try {
  const { summary } = await send({
    inputs: [input],
    settings: {
      endpoint: simulator.url,
      username: 'example',
      password: 'example',
      stateDir: join(folder, 'state'),
    },
    report: join(folder, 'report.csv'),
    events,
    // Stops the send between batches, resumably, as Ctrl-C stops the command.
    signal: AbortSignal.timeout(60_000),
  });
  for (const [outcome, count] of Object.entries(summary.byOutcome)) {
    console.log(`${outcome.padEnd(8)} ${count}`);
  }
  process.exitCode = summary.exitCode; // 0: all accepted; 1: some were not
} catch (error) {
  // UsageError (2), GatewayUnusableError (3), LockedError (4), OutsideWindowError (5),
  // StateUnwritableError (6), InterruptedError (130): each carries the exit code the command would end with.
  console.error(`not sent: ${error.message}`);
  process.exitCode = typeof error.exitCode === 'number' ? error.exitCode : 70;
} finally {
  await simulator.stop();
  await rm(folder, { recursive: true, force: true });
}
