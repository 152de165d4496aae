// The app's credentials. The bot token (`xoxb-`) is the key the container minted; the app-level
// token (`xapp-`, Socket Mode), the OAuth client id/secret are derived from it (HMAC), so they are
// stable exactly as long as the key is. User tokens (`xoxp-`) are minted by OAuth installs and
// kept as `token` records. Every token carries scopes; a method needs one of its scopes.

import { createHmac } from 'node:crypto';
import type { TwinContext } from '../../../twin-runtime/contract.js';
import type { User } from './records.js';
import { getSetting } from './settings.js';
import { botUser, getUser } from './workspace.js';

/** Every bot scope the twin knows (what the minted bot token has until an OAuth install narrows it). */
export const BOT_SCOPES = [
  'app_mentions:read',
  'assistant:write',
  'bookmarks:read',
  'bookmarks:write',
  'channels:history',
  'channels:join',
  'channels:manage',
  'channels:read',
  'chat:write',
  'chat:write.public',
  'commands',
  'emoji:read',
  'files:read',
  'files:write',
  'groups:history',
  'groups:read',
  'groups:write',
  'im:history',
  'im:read',
  'im:write',
  'links:write',
  'mpim:history',
  'mpim:read',
  'mpim:write',
  'pins:read',
  'pins:write',
  'reactions:read',
  'reactions:write',
  'reminders:read',
  'reminders:write',
  'team:read',
  'usergroups:read',
  'usergroups:write',
  'users.profile:read',
  'users:read',
  'users:read.email',
  'users:write',
];

/** A stored OAuth-minted token; external id is the token itself. */
export interface TokenRecord {
  token: string;
  kind: 'user' | 'bot';
  user: string;
  scopes: string[];
  revoked: boolean;
  created: number;
}

export type Identity =
  | { kind: 'bot'; token: string; user: User; scopes: string[] }
  | { kind: 'user'; token: string; user: User; scopes: string[] }
  | { kind: 'app'; token: string };

function derived(ctx: TwinContext, purpose: string): string {
  return createHmac('sha256', ctx.apiKey).update(`slack-twin:${purpose}`).digest('hex');
}

function digitsOf(hex: string, n: number): string {
  return [...hex]
    .slice(0, n)
    .map((c) => String(parseInt(c, 16) % 10))
    .join('')
    .replace(/^0/, '1');
}

/** The app-level token: `xapp-1-<app id>-<13 digits>-<64 hex>`. */
export function appToken(ctx: TwinContext): string {
  const appId = botUser(ctx).profile.api_app_id ?? 'A0000000000';
  const h = derived(ctx, 'app-token');
  return `xapp-1-${appId}-${digitsOf(derived(ctx, 'app-token-id'), 13)}-${h}`;
}

/** OAuth client credentials of the app (`<digits>.<digits>`, 32 hex). */
export function clientCredentials(ctx: TwinContext): { client_id: string; client_secret: string } {
  const d = derived(ctx, 'client-id');
  return { client_id: `${digitsOf(d, 13)}.${digitsOf(d.slice(13), 13)}`, client_secret: derived(ctx, 'client-secret').slice(0, 32) };
}

export function botScopes(ctx: TwinContext): string[] {
  return getSetting(ctx, 'app').bot_scopes ?? BOT_SCOPES;
}

/** Who a token is, or undefined when the twin never issued it (or it was revoked). */
export function identify(ctx: TwinContext, token: string): Identity | undefined {
  if (token === ctx.apiKey) return { kind: 'bot', token, user: botUser(ctx), scopes: botScopes(ctx) };
  if (token.startsWith('xapp-')) return token === appToken(ctx) ? { kind: 'app', token } : undefined;
  if (!token.startsWith('xox')) return undefined;
  const rec = ctx.store.get<TokenRecord>('token', token);
  if (!rec || rec.revoked) return undefined;
  const user = getUser(ctx, rec.user);
  if (!user || user.deleted) return undefined;
  return { kind: rec.kind, token, user, scopes: rec.scopes };
}

/** A new user token for `user` with `scopes`. */
export function mintUserToken(ctx: TwinContext, user: string, scopes: string[]): TokenRecord {
  const digits = (n: number) =>
    [...ctx.ids.bytes(n)]
      .map((b) => String(b % 10))
      .join('')
      .replace(/^0/, '1');
  const token = `xoxp-${digits(12)}-${digits(12)}-${digits(13)}-${ctx.ids.bytes(16).toString('hex')}`;
  const rec: TokenRecord = { token, kind: 'user', user, scopes, revoked: false, created: ctx.clock.nowSeconds() };
  ctx.store.put('token', token, rec);
  return rec;
}
