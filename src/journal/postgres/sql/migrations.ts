// Each version's statements, in order: `MIGRATIONS[n]` takes the schema from version n to n + 1
// (version 0: none). A campaign's row holds its manifest, its lease (holder, host, until when),
// the fencing number every write of its holder checks, and which journal generation is current;
// the journal holds one line per row, in the order written.
import type { Queries } from '../connect.js';

const MIGRATIONS: readonly string[] = [
  `CREATE TABLE sms_send.campaigns (
     id text PRIMARY KEY,
     manifest jsonb,
     fence bigint NOT NULL DEFAULT 0,
     holder text,
     host text,
     lease_until timestamptz,
     generation integer NOT NULL DEFAULT 1,
     updated_at timestamptz NOT NULL DEFAULT now()
   );
   CREATE TABLE sms_send.journal (
     campaign text NOT NULL REFERENCES sms_send.campaigns (id) ON UPDATE CASCADE ON DELETE CASCADE,
     generation integer NOT NULL,
     seq bigserial,
     line text NOT NULL,
     PRIMARY KEY (campaign, generation, seq)
   );
   CREATE TABLE sms_send.secrets (
     id serial PRIMARY KEY,
     key bytea NOT NULL,
     made_at timestamptz NOT NULL DEFAULT now(),
     retired_at timestamptz
   );
   CREATE UNIQUE INDEX secrets_current ON sms_send.secrets ((true)) WHERE retired_at IS NULL`,
  // A campaign's runs for its page, each as its run last kept it: told on every host.
  `CREATE TABLE sms_send.runs (
     campaign text NOT NULL REFERENCES sms_send.campaigns (id) ON UPDATE CASCADE ON DELETE CASCADE,
     key text NOT NULL,
     seq bigserial,
     host text NOT NULL,
     record jsonb NOT NULL,
     PRIMARY KEY (campaign, key)
   )`,
  // Each delivery report a receiver verified, whichever receiver took it: told on every host, of
  // the journal generation current when it came (a --force run sends the same MessageIds again).
  // A report the gateway sends again (to the same receiver or another) is kept once.
  `CREATE TABLE sms_send.deliveries (
     campaign text NOT NULL REFERENCES sms_send.campaigns (id) ON UPDATE CASCADE ON DELETE CASCADE,
     generation integer NOT NULL,
     seq bigserial,
     message_id text NOT NULL,
     status text NOT NULL,
     timestamp text NOT NULL,
     transaction_id text,
     received_at text NOT NULL,
     PRIMARY KEY (campaign, seq),
     UNIQUE (campaign, generation, message_id, status, timestamp)
   )`,
  // The report each run of a campaign ended with, as written on its host, in parts: read back on
  // any host. The newest replaces the one before.
  `CREATE TABLE sms_send.report_copies (
     campaign text PRIMARY KEY REFERENCES sms_send.campaigns (id) ON UPDATE CASCADE ON DELETE CASCADE,
     path text NOT NULL,
     host text NOT NULL,
     bytes bigint NOT NULL,
     sha256 text NOT NULL,
     run integer NOT NULL,
     kept_at timestamptz NOT NULL DEFAULT now()
   );
   CREATE TABLE sms_send.report_parts (
     campaign text NOT NULL REFERENCES sms_send.campaigns (id) ON UPDATE CASCADE ON DELETE CASCADE,
     part integer NOT NULL,
     bytes bytea NOT NULL,
     PRIMARY KEY (campaign, part)
   )`,
  // The delivery reports of `check --await-dlr`'s test messages, which belong to no campaign: any
  // receiver keeps them, and the check that sent the message reads them, on whichever host it runs.
  `CREATE TABLE sms_send.canary_reports (
     message_id text NOT NULL,
     status text NOT NULL,
     timestamp text NOT NULL,
     received_at text NOT NULL,
     seq bigserial,
     kept_at timestamptz NOT NULL DEFAULT now(),
     PRIMARY KEY (message_id, status, timestamp)
   )`,
];

/** The schema's version this sms-send reads and writes. */
export const SCHEMA_VERSION = MIGRATIONS.length;

/** Takes the schema from version `from` to this one, in the caller's transaction. */
export async function migrate(tx: Queries, from: number): Promise<void> {
  for (const statements of MIGRATIONS.slice(from)) await tx.query(statements);
}
