// Records the version the schema was moved to.
import type { Queries } from '../connect.js';

export async function setSchemaVersion(tx: Queries, version: number): Promise<void> {
  await tx.query(
    "INSERT INTO sms_send.meta (key, value) VALUES ('version', $1) ON CONFLICT (key) DO UPDATE SET value = $1",
    [String(version)],
  );
}
