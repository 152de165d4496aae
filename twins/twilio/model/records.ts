// Record kinds of the Twilio twin, their stored shapes, SIDs (two letters + 32 hex, deterministic
// from the id source) and Twilio's two time formats: RFC 2822 in the 2010-04-01 API
// (`Wed, 18 Aug 2010 20:01:40 +0000`), ISO 8601 in Verify v2.

import type { TwinContext } from '../../../twin-runtime/contract.js';

export const API = '/2010-04-01';

export const RESOURCES = [
  'account',
  'api_key',
  'incoming_phone_number',
  'messaging_service',
  'message',
  'call',
  'verify_service',
  'verification',
  'lifecycle_event',
] as const;

export function sid(ctx: TwinContext, prefix: string): string {
  return prefix + ctx.ids.bytes(16).toString('hex');
}

export function rfc2822(ms: number): string {
  return new Date(ms).toUTCString().replace('GMT', '+0000');
}

export function iso(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export interface Account {
  sid: string;
  friendly_name: string;
  created: number;
  /** The account's own messaging service and number at start. */
}

export interface ApiKey {
  sid: string;
  friendly_name: string;
  secret: string;
  created: number;
  updated: number;
}

export interface IncomingPhoneNumber {
  sid: string;
  phone_number: string;
  friendly_name: string;
  sms_url: string;
  sms_method: string;
  sms_fallback_url: string;
  voice_url: string;
  voice_method: string;
  voice_fallback_url: string;
  status_callback: string;
  created: number;
  updated: number;
}

export interface MessagingService {
  sid: string;
  friendly_name: string;
  /** Sender pool: phone numbers (E.164). */
  senders: string[];
  status_callback: string | null;
  created: number;
}

export type MessageStatus =
  | 'accepted'
  | 'scheduled'
  | 'queued'
  | 'sending'
  | 'sent'
  | 'delivered'
  | 'undelivered'
  | 'failed'
  | 'receiving'
  | 'received'
  | 'canceled'
  | 'read';

export interface Message {
  sid: string;
  direction: 'outbound-api' | 'inbound';
  from: string | null;
  to: string;
  body: string;
  media: string[];
  status: MessageStatus;
  messaging_service_sid: string | null;
  status_callback: string | null;
  error_code: number | null;
  error_message: string | null;
  price: string | null;
  created: number;
  updated: number;
  sent: number | null;
}

export type CallStatus = 'queued' | 'ringing' | 'in-progress' | 'completed' | 'busy' | 'failed' | 'no-answer' | 'canceled';

export interface Call {
  sid: string;
  direction: 'outbound-api' | 'inbound';
  from: string;
  to: string;
  url: string | null;
  twiml: string | null;
  status: CallStatus;
  status_callback: string | null;
  status_callback_method: string;
  status_callback_events: string[];
  phone_number_sid: string | null;
  callback_sequence: number;
  created: number;
  updated: number;
  start: number | null;
  end: number | null;
  duration: number | null;
  price: string | null;
}

export interface VerifyService {
  sid: string;
  friendly_name: string;
  code_length: number;
  lookup_enabled: boolean;
  skip_sms_to_landlines: boolean;
  dtmf_input_required: boolean;
  do_not_share_warning_enabled: boolean;
  custom_code_enabled: boolean;
  created: number;
  updated: number;
}

export type VerificationStatus = 'pending' | 'approved' | 'canceled' | 'max_attempts_reached' | 'deleted' | 'failed' | 'expired';

export interface Verification {
  sid: string;
  service_sid: string;
  to: string;
  channel: string;
  status: VerificationStatus;
  /** The code sent (twin-only: readable through the records API, never in an answer). */
  code: string;
  check_attempts: number;
  send_code_attempts: { attempt_sid: string; channel: string; time: string }[];
  created: number;
  updated: number;
  expires: number;
}

/** A status move due at `at` (ms): the message, call or verification it moves and to what. */
export interface LifecycleEvent {
  at: number;
  kind: 'message' | 'call' | 'verification';
  sid: string;
  status: string;
  error_code?: number;
}
