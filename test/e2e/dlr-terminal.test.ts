// `sms-send dlr` stopped with Ctrl-C typed on a terminal ends as SIGINT from a script does: every
// report it acknowledged recorded in the report, its summary printed, exit 0. (On a terminal the
// spinner's cursor handling listens to signals too, and once sms-send's own listener was gone it
// ended the process at once with 130, the summary and the last update unwritten.)
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { parseCsv, writeCampaignCsv } from '../helpers/files.js';
import { runInProcess } from '../helpers/in-process.js';
import { suiteFolder } from '../helpers/suite.js';
import { SCRIPT, startOnTerminal } from '../helpers/terminal.js';

const suite = suiteFolder();
const RECORDS = 60;
const TEMPLATE =
  /http:\/\/127\.0\.0\.1:\d+\/dlr\?msgid=\[\$MSGID\]&status=\[\$STATUS\]&timestamp=\[\$TIMESTAMP\]/;
const MISSING = 'script(1) from util-linux is not installed: the pseudo-terminal tests did not run';

describe.runIf(SCRIPT)('sms-send dlr on a terminal', () => {
  it('Ctrl-C: every acknowledged report recorded, the summary printed, exit 0', async () => {
    const campaign = join(suite.path, 'campaign.csv');
    const report = join(suite.path, 'campaign.report.csv');
    await writeCampaignCsv(campaign, RECORDS);
    const env = { NO_COLOR: '1', SMS_SEND_STATE_DIR: join(suite.path, 'state') };
    const sim = await suite.simulator({ deliveryReports: { delayMs: 5 } });
    const receiver = startOnTerminal(['dlr', '--port', '0', '--report', report], {
      cwd: suite.path,
      env,
    });
    const template = await vi.waitFor(
      () => {
        const found = TEMPLATE.exec(receiver.screen());
        if (!found) throw new Error(`no URL template yet: ${receiver.screen()}`);
        return found[0];
      },
      { timeout: 15_000, interval: 50 },
    );
    const sent = await runInProcess(
      [campaign, '--endpoint', sim.url, '--dlr-url', template, '--batch-size', '5'],
      { cwd: suite.path, env: { ...env, SMS_SEND_USERNAME: 'u', SMS_SEND_PASSWORD: 'p' } },
    );
    expect(sent.code, sent.stderr).toBe(0);
    await sim.deliveryReportsSettled();
    expect(sim.deliveryReportCalls.filter((call) => call.httpStatus === 200)).toHaveLength(RECORDS);

    receiver.type('\x03');
    const ended = await receiver.done;
    expect(ended.code).toBe(0);
    expect(ended.screen).toContain('✔ 60 delivery reports received');
    const rows = parseCsv(await readFile(report, 'utf8'));
    expect(rows).toHaveLength(RECORDS);
    expect(rows.filter((row) => row.deliveryStatus === 'DELIVRD')).toHaveLength(RECORDS);
  });
});
// Without script(1), the suite lists a skipped test that says why, rather than passing in silence.
if (!SCRIPT) {
  describe('sms-send dlr on a terminal', () => {
    it(MISSING, (context) => context.skip());
  });
}
