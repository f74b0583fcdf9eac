// The journal's sink on a real PostgreSQL when one statement fails (a trigger of the test's own
// refuses it once, as a server shutting down does): the answers it carried are held, never
// dropped, and no intent queued behind it is written, though the database answers again at once;
// so no batch leaves while an earlier answer is held only in memory.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { campaignIdentity } from '../../../src/journal/identity.js';
import { batchLine, resultLine } from '../../../src/journal/lines.js';
import { tempDir } from '../../helpers/files.js';
import { usePostgres } from '../../helpers/postgres.js';
import { databaseStore } from '../../helpers/state.js';

const server = usePostgres();

const accepted = (row: number) => ({
  row,
  outcome: 'accepted' as const,
  attempts: 1,
  statusCode: 0,
  transactionId: `T${row}`,
});

/** Fails the `nth` statement that writes journal lines from now on, once. */
async function failStatement(url: string, nth: number): Promise<void> {
  await server.query(
    url,
    `CREATE SEQUENCE public.writes;
     CREATE FUNCTION public.fail_nth() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN
       IF nextval('public.writes') = ${nth} THEN
         RAISE EXCEPTION 'the server is shutting down' USING ERRCODE = '57P01';
       END IF;
       RETURN NULL;
     END $$;
     CREATE TRIGGER fail_nth BEFORE INSERT ON sms_send.journal
       FOR EACH STATEMENT EXECUTE FUNCTION public.fail_nth();`,
  );
}

describe('a journal statement that fails while the database goes on answering', () => {
  it('holds its answers, and refuses the intent queued behind it', async () => {
    const dir = await tempDir();
    const stateUrl = await server.database();
    const store = databaseStore(stateUrl, join(dir.path, 'cache'));
    try {
      const claim = await store.claim({
        identity: campaignIdentity('a'.repeat(64)),
        force: false,
        resume: false,
      });
      const journal = await claim.openJournal();
      await journal.append({ t: 'start', v: 2, campaign: 'a'.repeat(64), run: 1, at: 'x' });
      await journal.append(batchLine('1:1', [1]));
      // The next statement, the one that carries batch 1's answer, fails.
      await failStatement(stateUrl, 1);
      // A worker's answer, then its next intent, queued while that statement is in flight.
      await journal.append(resultLine('1:1', [accepted(1)]));
      const next = journal.append(batchLine('1:2', [2]));
      await expect(next).rejects.toThrow(/the server is shutting down|did not answer/);
      expect(journal.failure).toBeDefined();
      expect(journal.unrecorded()).toMatchObject([{ t: 'result', b: '1:1' }]);
      // Nothing after the failure reached the table: batch 2's intent is not recorded.
      const lines = await server.query(stateUrl, 'SELECT line FROM sms_send.journal ORDER BY seq');
      const batches = lines.map((row) => (JSON.parse(row['line'] as string) as { b?: string }).b);
      expect(batches.map((b) => b ?? 'start')).toEqual(['start', '1:1']);
      // The held answer is written again once asked, while the run holds the campaign.
      expect(await journal.rewrite()).toBe(true);
      expect(journal.unrecorded()).toEqual([]);
      await journal.close();
      await claim.release();
    } finally {
      await store.close();
      await dir.remove();
    }
  });
});
