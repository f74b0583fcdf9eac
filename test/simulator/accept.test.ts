// The simulator's acceptance without HTTP: one result per item, fault dice per item, ledger and reports.
import { describe, expect, it } from 'vitest';
import { acceptMessages, type AcceptContext } from '../../src/simulator/accept.js';
import { STATUS_CODES } from '../../src/simulator/status-codes.js';

function context(rejections: boolean[] = [], acceptedBefore = 0): AcceptContext {
  let transactions = 0;
  let dice = 0;
  return {
    serverName: 'sim1',
    request: 7,
    receivedAt: 1_000,
    acceptedBefore,
    nextTransactionId: () => `t${++transactions}`,
    rejectNext: () => rejections[dice++] ?? false,
  };
}

const good = (id: string, extra: Record<string, unknown> = {}) => ({
  Gateway: 1933,
  DestinationAddress: '4741234567',
  Price: 0,
  UserData: 'hi',
  MessageId: id,
  ...extra,
});

describe('acceptMessages', () => {
  it('accepts valid items in order, numbering subnumref on from the ledger', () => {
    const items = [
      good('a'),
      good('b', { DeliveryReportUrl: 'http://127.0.0.1:9/dlr?m=[$MSGID]' }),
    ];
    const { results, accepted, reports } = acceptMessages(items, context([], 41));
    expect(results).toEqual([
      {
        StatusCode: STATUS_CODES.accepted.code,
        StatusDescription: 'Accepted',
        MessageId: 'a',
        TransactionId: 't1',
        ExtraInfo: { server: 'sim1', subnumref: '19330000000042' },
      },
      {
        StatusCode: STATUS_CODES.accepted.code,
        StatusDescription: 'Accepted',
        MessageId: 'b',
        TransactionId: 't2',
        ExtraInfo: { server: 'sim1', subnumref: '19330000000043' },
      },
    ]);
    expect(accepted).toEqual([
      {
        transactionId: 't1',
        messageId: 'a',
        destination: '4741234567',
        message: items[0],
        request: 7,
        receivedAt: 1_000,
      },
      {
        transactionId: 't2',
        messageId: 'b',
        destination: '4741234567',
        message: items[1],
        request: 7,
        receivedAt: 1_000,
      },
    ]);
    expect(reports).toEqual([
      {
        messageId: 'b',
        transactionId: 't2',
        destination: '4741234567',
        gateway: 1933,
        template: 'http://127.0.0.1:9/dlr?m=[$MSGID]',
      },
    ]);
  });

  it('rejects invalid items with their code and draws the dice for them too', () => {
    // Dice: item 1 (invalid) draws true, item 2 draws false, item 3 draws true.
    const items = [good('bad', { Price: 5, Gateway: 200000 }), good('ok'), good('unlucky')];
    const { results, accepted } = acceptMessages(items, context([true, false, true]));
    expect(results.map((r) => [r.MessageId, r.StatusCode, r.TransactionId])).toEqual([
      ['bad', STATUS_CODES.premiumGateway.code, 't1'],
      ['ok', STATUS_CODES.accepted.code, 't2'],
      ['unlucky', STATUS_CODES.simulatedRejection.code, 't3'],
    ]);
    expect(results[2]).toMatchObject({
      StatusDescription: 'Rejected by simulated operator fault',
      ExtraInfo: { server: 'sim1' },
    });
    expect(accepted.map((e) => e.messageId)).toEqual(['ok']);
  });

  it('gives nothing for no items', () => {
    expect(acceptMessages([], context())).toEqual({ results: [], accepted: [], reports: [] });
  });
});
