// What a failure of the state database means, in its words: the settings refused (retrying them
// does not help: exit 2 before anything is sent) or a database that did not answer for now (exit
// 6: the same command passes once it answers). Failures of anything else pass as they are.
import { StateStoreError } from '../../shared/errors.js';
import { DatabaseFailure, type Database } from './connect.js';
import { createGrants, useGrants } from './sql/grants.js';
import { whoAmI } from './sql/who-am-i.js';

/** What to do about a database that did not answer. */
export const DATABASE_DOWN_ADVICE = 'Run it again once the database answers.';

/**
 * SQLSTATE classes of a database that cannot take the statement now, whatever the settings:
 * connections (08), transactions rolled back (40), resources (53), an operator's shutdown or a
 * restart (57), the server's own I/O (58); and a lock not available (55P03).
 */
const FOR_NOW = /^(08|40|53|57|58)|^55P03$/;

/** A failure of the database, named; anything else as it is. */
export async function databaseError(error: unknown, db: Database): Promise<unknown> {
  if (!(error instanceof DatabaseFailure)) return error;
  const state = error.sqlState;
  const why = error.message;
  if (state === undefined || FOR_NOW.test(state)) {
    // A client that gave no password is refused by the driver before the server says a word.
    if (state === undefined && NO_PASSWORD.test(why)) {
      return refused(
        error,
        `the campaign state database ${db.where} asks for a password`,
        credentialsAdvice(db),
      );
    }
    if (state === undefined && TLS_REFUSED.test(why)) {
      return refused(
        error,
        `the campaign state database ${db.where} could not be reached over TLS as its URL asks (${why})`,
        "Check the URL's sslmode and sslrootcert against the server's certificate.",
      );
    }
    return new StateStoreError(
      `the campaign state database ${db.where} did not answer (${why})`,
      false,
      DATABASE_DOWN_ADVICE,
      { cause: error },
    );
  }
  if (state === '42501') return schemaRefused(db, error);
  const [message, advice] = (REFUSALS[state] ?? otherRefusal)(db, why);
  return refused(error, message, advice);
}

function refused(error: DatabaseFailure, message: string, advice: string): StateStoreError {
  return new StateStoreError(message, true, advice, { cause: error });
}

/** The driver's words when the server asks for a password and none was given. */
const NO_PASSWORD = /client password must be a string|password must be a string/i;

/** TLS settings the server or its certificate does not match: the same URL fails again. */
const TLS_REFUSED =
  /does not support SSL|self[- ]signed certificate|unable to verify|certificate has expired|Hostname\/IP does not match/i;

const REFUSALS: Record<string, (db: Database, why: string) => [string, string]> = {
  // invalid_password
  '28P01': (db, why) => [
    `the campaign state database ${db.where} refused the credentials (${why})`,
    credentialsAdvice(db),
  ],
  // invalid_authorization_specification: no such role, or no pg_hba.conf entry for this client
  '28000': (db, why) => [
    `the campaign state database ${db.where} refused the connection (${why})`,
    /pg_hba\.conf/.test(why)
      ? "The server's pg_hba.conf admits no such client: its administrator adds this host, user and database (with the sslmode the URL asks for)."
      : credentialsAdvice(db),
  ],
  // invalid_catalog_name
  '3D000': (db, why) => [
    `the campaign state database ${db.where} does not exist (${why})`,
    'Create it (CREATE DATABASE … OWNER <user>), or name an existing one in the state URL.',
  ],
  // read_only_sql_transaction
  '25006': (db, why) => [
    `the campaign state database ${db.where} takes no writes (${why})`,
    'The URL names a read-only server (a standby): name the primary.',
  ],
};

function credentialsAdvice(db: Database): string {
  return db.passwordGiven
    ? 'Check the user and password the state URL gives (or PGUSER and PGPASSWORD): the same ones are refused again.'
    : 'No password was given: put it in the URL SMS_SEND_STATE_URL or the config file holds, or in PGPASSWORD.';
}

function otherRefusal(db: Database, why: string): [string, string] {
  return [
    `the campaign state database ${db.where} refused a statement of sms-send's (${why})`,
    "Check that the state URL names a database whose sms_send schema is sms-send's own: retrying does not help.",
  ];
}

/**
 * The refusal of a user who may not make or use the schema (SQLSTATE 42501), with the grant that
 * lets it: the right to create the schema, or, where another user made it, that user's grant.
 */
export async function schemaRefused(
  db: Database,
  error: DatabaseFailure,
): Promise<StateStoreError> {
  const found = await whoAmI(db).catch(() => undefined);
  const { user = '<user>', database = '<database>', owner = null } = found ?? {};
  const to = identifier(user);
  const advice =
    owner === null
      ? `${createGrants(identifier(database), to)}, run by an administrator.`
      : `The schema sms_send belongs to ${owner}: run every host as ${owner}, or have ${owner} ` +
        `grant its use: ${useGrants(to)}.`;
  const what = owner === null ? "create sms-send's schema" : "use sms-send's schema";
  return new StateStoreError(
    `the campaign state database ${db.where} does not let ${user} ${what} (${error.message})`,
    true,
    advice,
    { cause: error, code: 'state-permission' },
  );
}

/** A name as SQL takes it: quoted unless it is plain lower case. */
function identifier(name: string): string {
  return /^[a-z_][a-z0-9_$]*$/.test(name) ? name : `"${name.replace(/"/g, '""')}"`;
}

/** `work`, a failure of the database named as databaseError says. */
export async function guarded<T>(db: Database, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw await databaseError(error, db);
  }
}
