// Appends lines to a held campaign's current journal, in order, renewing the run's lease in the
// same statement: false (nothing written) when another run took the campaign over.
import type { Queries } from '../connect.js';
import type { Fenced } from './fenced.js';

export async function appendLines(
  db: Queries,
  lease: Fenced,
  seconds: number,
  lines: readonly string[],
): Promise<boolean> {
  const result = await db.query({
    // Named: the server plans it once per connection.
    name: 'sms-send-journal-append',
    text: `WITH held AS (
       UPDATE sms_send.campaigns SET lease_until = now() + make_interval(secs => $3)
        WHERE id = $1 AND fence = $2::bigint RETURNING id, generation)
     INSERT INTO sms_send.journal (campaign, generation, line)
     SELECT held.id, held.generation, line FROM held, unnest($4::text[]) WITH ORDINALITY AS l(line, n)
      ORDER BY n`,
    values: [lease.id, lease.fence, seconds, lines],
  });
  return result.rowCount !== 0;
}
