// Twin settings, kept as `setting` records so the control plane's records API (or the twin-only
// `twin.settings.*` methods) can read and change them:
//   events      {request_url, signing_secret, verification_token, event_types}  Events API delivery
//   rate_limit  {enabled, retry_after, limit, window_seconds, methods}          429 + Retry-After

import type { TwinContext } from '../../../twin-runtime/contract.js';

export interface EventsSetting {
  /** Where event callbacks are POSTed; null turns the Events API off. */
  request_url: string | null;
  /** The app's signing secret (`X-Slack-Signature` is an HMAC with it). */
  signing_secret: string;
  /** The deprecated verification token carried in every envelope's `token`. */
  verification_token: string;
  /** Event types delivered; null means every type the twin emits. */
  event_types: string[] | null;
}

export interface RateLimitSetting {
  enabled: boolean;
  /** Seconds in the `Retry-After` header. */
  retry_after: number;
  /** Calls allowed per method per window; null refuses every call while enabled. */
  limit: number | null;
  window_seconds: number;
  /** Methods limited; null means every Web API method (twin.* methods never are). */
  methods: string[] | null;
}

export const SETTING_NAMES = ['events', 'rate_limit'] as const;
export type SettingName = (typeof SETTING_NAMES)[number];

function defaults(ctx: TwinContext, name: SettingName): EventsSetting | RateLimitSetting {
  if (name === 'events') {
    return {
      request_url: null,
      signing_secret: ctx.ids.bytes(16).toString('hex'),
      verification_token: ctx.ids.token(24),
      event_types: null,
    };
  }
  return { enabled: false, retry_after: 30, limit: null, window_seconds: 60, methods: null };
}

/** Read a setting, writing its defaults on first use so it is visible as a record. */
export function getSetting(ctx: TwinContext, name: 'events'): EventsSetting;
export function getSetting(ctx: TwinContext, name: 'rate_limit'): RateLimitSetting;
export function getSetting(ctx: TwinContext, name: SettingName): EventsSetting | RateLimitSetting;
export function getSetting(ctx: TwinContext, name: SettingName): EventsSetting | RateLimitSetting {
  const saved = ctx.store.get<Record<string, unknown>>('setting', name);
  const base = defaults(ctx, name) as unknown as Record<string, unknown>;
  if (saved) return { ...base, ...saved } as unknown as EventsSetting | RateLimitSetting;
  ctx.store.put('setting', name, base);
  return base as unknown as EventsSetting | RateLimitSetting;
}

/** Check one field of a setting change; answers an error sentence or undefined. */
function invalidField(name: SettingName, key: string, value: unknown): string | undefined {
  const isStringList = (v: unknown) => v === null || (Array.isArray(v) && v.every((x) => typeof x === 'string'));
  if (name === 'events') {
    switch (key) {
      case 'request_url':
        if (value === null) return undefined;
        if (typeof value !== 'string') return 'request_url must be a URL or null';
        try {
          const u = new URL(value);
          return u.protocol === 'http:' || u.protocol === 'https:' ? undefined : 'request_url must be http(s)';
        } catch {
          return 'request_url must be a URL or null';
        }
      case 'signing_secret':
      case 'verification_token':
        return typeof value === 'string' && value !== '' ? undefined : `${key} must be a non-empty string`;
      case 'event_types':
        return isStringList(value) ? undefined : 'event_types must be a list of strings or null';
    }
  } else {
    switch (key) {
      case 'enabled':
        return typeof value === 'boolean' ? undefined : 'enabled must be a boolean';
      case 'retry_after':
      case 'window_seconds':
        return Number.isInteger(value) && (value as number) >= 1 ? undefined : `${key} must be a positive integer`;
      case 'limit':
        return value === null || (Number.isInteger(value) && (value as number) >= 0) ? undefined : 'limit must be a non-negative integer or null';
      case 'methods':
        return isStringList(value) ? undefined : 'methods must be a list of strings or null';
    }
  }
  return `unknown field ${key}`;
}

/** Merge `changes` into a setting; answers the error sentence when a field is invalid. */
export function updateSetting(
  ctx: TwinContext,
  name: SettingName,
  changes: Record<string, unknown>,
): { value: EventsSetting | RateLimitSetting } | { error: string } {
  for (const [k, v] of Object.entries(changes)) {
    const bad = invalidField(name, k, v);
    if (bad) return { error: bad };
  }
  const value = { ...getSetting(ctx, name), ...changes } as EventsSetting | RateLimitSetting;
  ctx.store.put('setting', name, value);
  return { value };
}
