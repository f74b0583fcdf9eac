// Who the state URL connects as, in which database, and who owns sms-send's schema (if anyone):
// what a refusal to make or use the schema names in the grant it advises.
import type { Queries } from '../connect.js';

export interface Whoami {
  user: string;
  database: string;
  owner: string | null;
}

export async function whoAmI(db: Queries): Promise<Whoami | undefined> {
  const found = await db.query<Whoami>(
    `SELECT current_user AS user, current_database() AS database,
            (SELECT nspowner::regrole::text FROM pg_namespace WHERE nspname = 'sms_send') AS owner`,
  );
  return found.rows[0];
}
