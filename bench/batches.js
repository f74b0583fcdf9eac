// The bench's campaign as the loops send it: the same recipients and texts as the CSV the bench
// writes for sms-send, in prebuilt RestSmsRequest bodies of 100 messages.
export const BATCH = 100;

export const msisdn = (i) => 4741000000 + (i % 8_000_000);

const text = (i) => `Hello N${i}, this is message ${i}`;

/** One JSON body per batch, built as a loop without a journal would build them. */
export function requestBodies(records) {
  const bodies = [];
  for (let start = 0; start < records; start += BATCH) {
    const messages = [];
    for (let i = start; i < Math.min(records, start + BATCH); i++) {
      messages.push({
        Gateway: 99700999,
        DestinationAddress: msisdn(i),
        Price: 0,
        MessageType: '00',
        MessageId: `bench-${i}`,
        UserData: text(i),
      });
    }
    bodies.push(JSON.stringify({ Username: 'bench', Password: 'bench-pw', Messages: messages }));
  }
  return bodies;
}
