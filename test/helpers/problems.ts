// Reading the problem lines sms-send prints for bad input, and what it must print for the bad-records fixture.

/** The "  file:line: field: reason" lines of an exit-2 explanation, in the order printed. */
export function problemLines(error: string): { at: string; field: string; reason: string }[] {
  const out: { at: string; field: string; reason: string }[] = [];
  for (const line of error.split('\n')) {
    const match = /^ {2}(\S+:\d+): (.+?): (.*)$/.exec(line);
    if (match) out.push({ at: match[1]!, field: match[2]!, reason: match[3]! });
  }
  return out;
}

/** The "by field: to 4, text 3" line as an object. */
export function byField(error: string): Record<string, number> {
  const line = error.split('\n').find((l) => l.startsWith('by field: '));
  if (line === undefined) return {};
  return Object.fromEntries(
    line
      .slice('by field: '.length)
      .split(', ')
      .map((part) => {
        const at = part.lastIndexOf(' ');
        return [part.slice(0, at), Number(part.slice(at + 1))];
      }),
  );
}

export function firstLine(text: string): string {
  return text.split('\n')[0]!;
}

/** Matches text that begins with `prefix`, shown literally in a failure. */
export function startsWith(prefix: string): RegExp {
  return new RegExp(`^${prefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`);
}

/** The problems of test/fixtures/input/bad-records.csv, in the order they are listed. */
export const BAD_RECORDS_PROBLEMS: [at: string, field: string, reason: RegExp][] = [
  ['bad-records.csv:3', 'to', /^"\+4721234567" is a fixed-line number, not a mobile number$/],
  ['bad-records.csv:4', 'to', /^"41234567" .*--country/],
  ['bad-records.csv:5', 'to', /^"not-a-number" not a phone number/],
  ['bad-records.csv:6', 'OriginatorAddress', /"ThisIsWayTooLong" is 16 characters \(at most 11\)/],
  ['bad-records.csv:7', 'OriginatorAddress', /26 digits \(at most 25\)/],
  ['bad-records.csv:8', 'Price', /needs a short-number gateway/],
  ['bad-records.csv:9', 'MessageId', /is 33 characters \(at most 32\)/],
  ['bad-records.csv:11', 'MessageId', /"same-id" is used by an earlier record/],
  ['bad-records.csv:12', 'UserDataHeader', /must be hex/],
  ['bad-records.csv:13', 'text', /must be hex .*"10"/],
  ['bad-records.csv:14', '{{nobody}}', /no field "nobody"/],
  ['bad-records.csv:15', 'ValidationPeriod', /20301331000000 is not a real date/],
  ['bad-records.csv:16', 'CustomData', /must be a JSON object/],
  ['bad-records.csv:17', 'DeliveryReportUrl', /absolute http\(s\) URL/],
  ['bad-records.csv:18', 'text', /^is empty$/],
  ['bad-records.csv:19', 'text', /is 1025 characters \(at most 1024\)/],
  ['bad-records.csv:20', 'to', /^"\+4721234568" is a fixed-line number, not a mobile number$/],
  ['bad-records.csv:20', 'OriginatorAddress', /at most 11/],
];

/** The "by field" counts of the same fixture. */
export const BAD_RECORDS_BY_FIELD: Record<string, number> = {
  to: 4,
  OriginatorAddress: 3,
  text: 3,
  MessageId: 2,
  Price: 1,
  UserDataHeader: 1,
  '{{nobody}}': 1,
  ValidationPeriod: 1,
  CustomData: 1,
  DeliveryReportUrl: 1,
};
