// The report sink writes rows as they come, in order, without waiting for a batch once it holds
// a few hundred: a resume reports every earlier record before its first batch.
import { describe, expect, it } from 'vitest';
import type { RowResult } from '../../src/message/outcome.js';
import { ReportSink } from '../../src/report/sink.js';
import type { ReportWriter } from '../../src/report/writer.js';

function row(n: number): RowResult {
  return { row: n, to: '4741000000', messageId: `m-${n}`, outcome: 'accepted', attempts: 1 };
}

describe('ReportSink', () => {
  it('writes what it holds once it holds 256 rows, and the rest when flushed, in order', async () => {
    const written: number[][] = [];
    const writer: ReportWriter = {
      path: 'r.csv',
      format: 'csv',
      write: (rows) => {
        written.push(rows.map((r) => r.row));
        return Promise.resolve();
      },
      close: () => Promise.resolve(),
    };
    const sink = new ReportSink(writer);
    for (let n = 1; n <= 255; n++) sink.add(row(n));
    await Promise.resolve();
    expect(written).toEqual([]);
    for (let n = 256; n <= 700; n++) sink.add(row(n));
    await new Promise((resolve) => setImmediate(resolve));
    expect(written.map((rows) => rows.length)).toEqual([256, 256]);
    await sink.close();
    expect(written.flat()).toEqual(Array.from({ length: 700 }, (_v, i) => i + 1));
  });
});
