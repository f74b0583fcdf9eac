// Wire shapes of the RestSmsRequest service (docs/gateway.md#fields-and-their-limits), PascalCase as on the wire.

/** One message to send (RestSmsMessageReq). Numbers travel as JSON integers. */
export interface RestSmsMessageReq {
  Gateway: number;
  OriginatorAddress?: string;
  DestinationAddress: number;
  Price: number;
  MessageType?: string;
  ValidationPeriod?: string;
  MessageId?: string;
  UserDataHeader?: string;
  UserData: string;
  Category?: string;
  CustomData?: Record<string, unknown>;
  DeliveryReportUrl?: string;
  ServiceCode?: string;
  ServiceDescription?: string;
}

/** The request body: credentials travel in the body, never in headers. */
export interface RestSmsRequest {
  Username: string;
  Password: string;
  Messages: RestSmsMessageReq[];
}

/** One per-message result (RestSmsMessageResp). */
export interface RestSmsMessageResp {
  StatusCode: number;
  StatusDescription: string;
  MessageId?: string;
  TransactionId: string;
  ExtraInfo?: Record<string, string>;
}

/** The response body. ProcessResult false means a request-level failure. */
export interface RestSmsResponse {
  ProcessResult: boolean;
  ProcessResultDescription?: string;
  Messages?: RestSmsMessageResp[];
}

/** The path of the only operation, appended to the configured endpoint. */
export const OPERATION_PATH = '/json/reply/RestSmsRequest';

/** The cross-country gateway for non-premium traffic (docs/gateway.md#the-premium-rule). */
export const DEFAULT_GATEWAY = 99700999;

/** Field limits from the server's DTO declarations (docs/gateway.md#fields-and-their-limits). */
export const LIMITS = {
  Username: 128,
  Password: 128,
  OriginatorAddress: 25,
  OriginatorAlphanumeric: 11,
  MessageType: 2,
  ValidationPeriod: 14,
  MessageId: 32,
  UserDataHeader: 32,
  UserData: 1024,
  Category: 32,
  DeliveryReportUrl: 2048,
  ServiceCode: 128,
  ServiceDescription: 512,
  TransactionId: 32,
  StatusDescription: 2048,
  ProcessResultDescription: 2048,
} as const;

/**
 * The header sms-send's simulator puts on every answer (docs/simulator.md): a run that meets it
 * was a rehearsal, whatever endpoint it was given.
 */
export const SIMULATOR_HEADER = 'x-sms-send-simulator';
