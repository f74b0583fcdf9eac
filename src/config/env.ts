// Reads the settings that the environment may set (SMS_SEND_*).
import type { FileSettings } from './schema.js';

export const ENV = {
  endpoint: 'SMS_SEND_ENDPOINT',
  username: 'SMS_SEND_USERNAME',
  password: 'SMS_SEND_PASSWORD',
  profile: 'SMS_SEND_PROFILE',
  stateDir: 'SMS_SEND_STATE_DIR',
} as const;

export function envLayer(env: NodeJS.ProcessEnv): FileSettings {
  const values: FileSettings = {};
  const endpoint = env[ENV.endpoint];
  const username = env[ENV.username];
  const password = env[ENV.password];
  if (endpoint) values.endpoint = endpoint;
  if (username) values.username = username;
  if (password) values.password = password;
  const stateDir = env[ENV.stateDir];
  if (stateDir) values.stateDir = stateDir;
  return values;
}
