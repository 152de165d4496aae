// Twin settings, kept as `setting` records so the control plane's records API (or the twin-only
// `twin.settings.*` methods) can read and change them:
//   events      {request_url, signing_secret, verification_token, event_types}  Events API delivery
//   rate_limit  {enabled, retry_after, limit, window_seconds, methods}          429 + Retry-After
//   app         {socket_mode, interactivity_url, commands, redirect_urls, bot_scopes, trigger_ttl_ms}
//               how the app is reached (Socket Mode or request URLs) and what it was granted

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

export interface AppSetting {
  /** Deliver events, commands and interactivity over Socket Mode (set by `apps.connections.open`). */
  socket_mode: boolean;
  /** HTTP mode: where interactivity payloads go (null: the events request URL). */
  interactivity_url: string | null;
  /** HTTP mode: slash command → request URL (a command not listed goes to the events request URL). */
  commands: Record<string, string>;
  /** OAuth redirect URLs the authorize page accepts (empty: any http(s) URL). */
  redirect_urls: string[];
  /** Scopes of the bot token (null: every scope the twin knows; an OAuth install sets the granted ones). */
  bot_scopes: string[] | null;
  /** How long a trigger_id stays usable, in wall-clock milliseconds (Slack: 3 s). */
  trigger_ttl_ms: number;
}

export const SETTING_NAMES = ['events', 'rate_limit', 'app'] as const;
export type SettingName = (typeof SETTING_NAMES)[number];

type AnySetting = EventsSetting | RateLimitSetting | AppSetting;

function defaults(ctx: TwinContext, name: SettingName): AnySetting {
  if (name === 'app') {
    return { socket_mode: false, interactivity_url: null, commands: {}, redirect_urls: [], bot_scopes: null, trigger_ttl_ms: 3000 };
  }
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
export function getSetting(ctx: TwinContext, name: 'app'): AppSetting;
export function getSetting(ctx: TwinContext, name: SettingName): AnySetting;
export function getSetting(ctx: TwinContext, name: SettingName): AnySetting {
  const saved = ctx.store.get<Record<string, unknown>>('setting', name);
  const base = defaults(ctx, name) as unknown as Record<string, unknown>;
  if (saved) return { ...base, ...saved } as unknown as AnySetting;
  ctx.store.put('setting', name, base);
  return base as unknown as AnySetting;
}

/** Check one field of a setting change; answers an error sentence or undefined. */
/** Whether `value` is an http(s) URL. */
export function isHttpUrl(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  try {
    const u = new URL(value);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}

function invalidField(name: SettingName, key: string, value: unknown): string | undefined {
  const isStringList = (v: unknown) => v === null || (Array.isArray(v) && v.every((x) => typeof x === 'string'));
  if (name === 'app') {
    switch (key) {
      case 'socket_mode':
        return typeof value === 'boolean' ? undefined : 'socket_mode must be a boolean';
      case 'interactivity_url':
        return value === null || isHttpUrl(value) ? undefined : 'interactivity_url must be an http(s) URL or null';
      case 'commands':
        if (!value || typeof value !== 'object' || Array.isArray(value)) return 'commands must be an object of command → URL';
        return Object.entries(value).every(([k, v]) => /^\/[a-z0-9_-]{1,31}$/i.test(k) && isHttpUrl(v))
          ? undefined
          : 'commands must map "/command" to an http(s) URL';
      case 'redirect_urls':
        return Array.isArray(value) && value.every(isHttpUrl) ? undefined : 'redirect_urls must be a list of http(s) URLs';
      case 'bot_scopes':
        return isStringList(value) ? undefined : 'bot_scopes must be a list of strings or null';
      case 'trigger_ttl_ms':
        return Number.isInteger(value) && (value as number) >= 1 ? undefined : 'trigger_ttl_ms must be a positive integer';
    }
    return `unknown field ${key}`;
  }
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
export function updateSetting(ctx: TwinContext, name: SettingName, changes: Record<string, unknown>): { value: AnySetting } | { error: string } {
  for (const [k, v] of Object.entries(changes)) {
    const bad = invalidField(name, k, v);
    if (bad) return { error: bad };
  }
  const value = { ...getSetting(ctx, name), ...changes } as AnySetting;
  ctx.store.put('setting', name, value);
  return { value };
}
