// A page of every journal of a campaign (the set-aside generations first), after a line's place.
import type { Queries } from '../connect.js';
import { JOURNAL_PAGE } from './journal-page.js';

export interface JournalPlace {
  generation: number;
  seq: string;
}

export async function everyJournalPage(
  db: Queries,
  id: string,
  after: JournalPlace,
): Promise<(JournalPlace & { line: string })[]> {
  const page = await db.query<JournalPlace & { line: string }>(
    `SELECT generation, seq, line FROM sms_send.journal
      WHERE campaign = $1 AND (generation, seq) > ($2, $3::bigint)
      ORDER BY generation, seq LIMIT ${JOURNAL_PAGE}`,
    [id, after.generation, after.seq],
  );
  return page.rows;
}
