// Makes sms-send's schema and the table that holds its version, unless they are there.
import type { Queries } from '../connect.js';

export async function makeMeta(tx: Queries): Promise<void> {
  await tx.query(`CREATE SCHEMA IF NOT EXISTS sms_send;
    CREATE TABLE IF NOT EXISTS sms_send.meta (key text PRIMARY KEY, value text NOT NULL)`);
}
