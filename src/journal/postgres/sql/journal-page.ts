// A page of a campaign's journal of one generation, after a line's sequence number.
import type { Queries } from '../connect.js';

/** Rows per read of a journal: a resume of millions reads it in pieces. */
export const JOURNAL_PAGE = 5000;

export async function journalPage(
  db: Queries,
  id: string,
  generation: number,
  after: string,
): Promise<{ seq: string; line: string }[]> {
  // The sequence number as a bigint, ordered as one: node-postgres hands bigints over as text,
  // and a page ordered by that text would skip lines.
  const page = await db.query<{ seq: string; line: string }>(
    `SELECT seq, line FROM sms_send.journal
      WHERE campaign = $1 AND generation = $2 AND seq > $3::bigint ORDER BY seq LIMIT ${JOURNAL_PAGE}`,
    [id, generation, after],
  );
  return page.rows;
}
