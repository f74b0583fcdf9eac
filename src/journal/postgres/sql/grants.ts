// The statements an administrator runs so that a role may use sms-send's schema: shown, never run
// by sms-send itself (it asks for no rights beyond its own tables).

/** What lets `role` (a quoted identifier) make the schema in `database`: either one. */
export function createGrants(database: string, role: string): string {
  return `GRANT CREATE ON DATABASE ${database} TO ${role}, or CREATE SCHEMA sms_send AUTHORIZATION ${role}`;
}

/** What lets `role` use the schema another role made. */
export function useGrants(role: string): string {
  return (
    `GRANT USAGE ON SCHEMA sms_send TO ${role}; GRANT SELECT, INSERT, UPDATE, DELETE ON ALL ` +
    `TABLES IN SCHEMA sms_send TO ${role}; GRANT USAGE ON ALL SEQUENCES IN SCHEMA sms_send TO ${role}`
  );
}
