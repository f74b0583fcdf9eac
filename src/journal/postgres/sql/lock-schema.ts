// One lock, for the transaction, for every run that makes or moves the schema at the same moment.
import type { Queries } from '../connect.js';

const SCHEMA_LOCK = 7_283_410_552;

export async function lockSchema(tx: Queries): Promise<void> {
  await tx.query('SELECT pg_advisory_xact_lock($1)', [SCHEMA_LOCK]);
}
