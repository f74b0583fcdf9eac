// Appends a line to the current journal of a campaign no run holds (a delivery report's fold);
// false when a run holds it now.
import type { Queries } from '../connect.js';
import { LIVE } from './fenced.js';

export async function appendUnheld(tx: Queries, id: string, line: string): Promise<boolean> {
  const result = await tx.query(
    `INSERT INTO sms_send.journal (campaign, generation, line)
     SELECT id, generation, $2 FROM sms_send.campaigns WHERE id = $1 AND NOT ${LIVE}`,
    [id, line],
  );
  return result.rowCount === 1;
}
