// The package's programmatic API, for Node scripts: `import { send } from 'restsms-send'`.
// Re-exports only; docs/api.md describes each name. The command line is built on the same core.
export {
  check,
  plan,
  send,
  type CampaignOptions,
  type CheckOptions,
  type CommonOptions,
  type PlanOptions,
  type SendOptions,
  type SettingsInput,
} from './campaign/api.js';
export type { CheckDocument, CheckRequest } from './campaign/check.js';
export type {
  ErrorJson,
  PlanDocument,
  PlanJson,
  SummaryDocument,
  SummaryJson,
  WindowJson,
} from './campaign/documents.js';
export type { CanaryDelivery, CanaryResult } from './dlr/canary.js';
export type { CheckResult } from './gateway/check.js';
export type { Outcome, RowResult } from './message/outcome.js';
export { SendEmitter, type BatchReport, type RetryNotice, type SendEvents } from './send/events.js';
export {
  ExitCode,
  GatewayUnusableError,
  InterruptedError,
  LockedError,
  NotAllAcceptedError,
  OutsideWindowError,
  SmsSendError,
  StateUnwritableError,
  UsageError,
  type Problem,
} from './shared/errors.js';
export {
  startSimulator,
  type FaultOptions,
  type LedgerEntry,
  type Simulator,
  type SimulatorOptions,
  type TransactionIds,
} from './simulator/index.js';
