// The send pipeline end to end in-process: CSV → messages → batches → simulator → report.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILT_IN_DEFAULTS } from '../../src/config/table.js';
import { GatewayClient } from '../../src/gateway/client.js';
import { readCampaign } from '../../src/validate/reader.js';
import { ReportSink } from '../../src/report/sink.js';
import { openReport } from '../../src/report/writer.js';
import { toEntries } from '../../src/validate/entries.js';
import { systemClock } from '../../src/shared/clock.js';
import { SendEmitter, type BatchReport } from '../../src/send/events.js';
import { sendLoop } from '../../src/send/send.js';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';
import { parseCsv, tempDir, writeCampaignCsv } from '../helpers/files.js';

const RECORDS = 2000;
const BATCH_SIZE = 100;

describe('send pipeline against the simulator', () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let simulator: Simulator;

  beforeAll(async () => {
    dir = await tempDir();
    simulator = await startSimulator({ credentials: { username: 'u', password: 'p' } });
  });
  afterAll(async () => {
    await simulator.stop();
    await dir.remove();
  });

  it('sends 2,000 records once each and reports every one with its TransactionId', async () => {
    const input = join(dir.path, 'big.csv');
    const reportPath = join(dir.path, 'big.report.csv');
    await writeCampaignCsv(input, RECORDS);

    const campaign = readCampaign({
      files: [{ path: input, label: input }],
      mapping: {},
      message: {
        defaults: { gateway: Number(BUILT_IN_DEFAULTS.gateway), price: 0, customData: {} },
      },
      campaignKey: 'testcampai',
      now: new Date(),
    });
    const client = new GatewayClient(
      { endpoint: simulator.url, username: 'u', password: 'p' },
      { concurrency: 4, timeoutMs: 10_000, proxies: {} },
      systemClock,
    );
    const sink = new ReportSink(await openReport(reportPath, { force: false }));
    const events = new SendEmitter();
    const batches: BatchReport[] = [];
    events.on('record', (row) => sink.add(row));
    events.on('batch', (batch) => {
      batches.push(batch);
      void sink.flush();
    });

    const outcome = await sendLoop(
      toEntries(campaign.records()),
      {
        settings: { batchSize: BATCH_SIZE, concurrency: 4, retries: 3, outageGraceMs: 0 },
        choices: {},
        io: { events, clock: systemClock },
      },
      { poster: client },
    );
    await sink.close();
    await client.close();

    expect(outcome).toEqual({ stopped: undefined, interrupted: false, notSent: 0 });
    const rows = parseCsv(await readFile(reportPath, 'utf8'));
    expect(rows).toHaveLength(RECORDS);
    expect(new Set(rows.map((r) => r.row)).size).toBe(RECORDS);
    expect(rows.filter((r) => r.outcome !== 'accepted' || r.statusCode !== '0')).toEqual([]);

    // The ledger holds each message exactly once, and the report's TransactionIds are the simulator's.
    expect(simulator.ledger).toHaveLength(RECORDS);
    const ledgerByMessageId = new Map(simulator.ledger.map((e) => [e.messageId, e]));
    expect(ledgerByMessageId.size).toBe(RECORDS);
    for (const row of rows) {
      const entry = ledgerByMessageId.get(row.messageId!);
      expect(entry?.transactionId).toBe(row.transactionId);
      expect(entry?.destination).toBe(row.to);
    }

    // No request carried more than the batch size, and the batches add up to every record.
    expect(batches).toHaveLength(RECORDS / BATCH_SIZE);
    expect(Math.max(...simulator.requests.map((r) => r.messageCount))).toBe(BATCH_SIZE);
    expect(batches.reduce((sum, b) => sum + b.size, 0)).toBe(RECORDS);
  });
});
