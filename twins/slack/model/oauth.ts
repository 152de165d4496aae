// Installing the app with OAuth v2: the twin's authorize page (a person approves the requested
// bot and user scopes), a one-time `code` on the redirect, and oauth.v2.access exchanging it for
// the bot token (the twin's key, narrowed to the granted scopes) and a user token for the person.

import type { TwinContext } from '../../../twin-runtime/contract.js';
import { SlackError } from '../wire/errors.js';
import type { User } from './records.js';
import { getSetting, updateSetting } from './settings.js';
import { BOT_SCOPES, clientCredentials, mintUserToken } from './tokens.js';
import { botUser, currentTeam, getUser } from './workspace.js';

/** Scopes a user token may be granted (besides every bot scope). */
export const USER_ONLY_SCOPES = ['search:read', 'users.profile:write', 'reminders:read', 'reminders:write', 'channels:write', 'identify'];

interface OAuthCode {
  code: string;
  user: string;
  scopes: string[];
  user_scopes: string[];
  redirect_uri: string | null;
  issued_ms: number;
  used: boolean;
}

const CODE_TTL_MS = 10 * 60 * 1000;

export interface AuthorizeRequest {
  client_id: string;
  scopes: string[];
  user_scopes: string[];
  redirect_uri: string | null;
  state: string;
}

/** Check what the authorize URL asks for; answers Slack's error code, or undefined. */
export function authorizeError(ctx: TwinContext, r: AuthorizeRequest): string | undefined {
  if (r.client_id !== clientCredentials(ctx).client_id) return 'invalid_client_id';
  if (r.scopes.length === 0 && r.user_scopes.length === 0) return 'invalid_scope';
  if (r.scopes.some((s) => !BOT_SCOPES.includes(s))) return 'invalid_scope';
  if (r.user_scopes.some((s) => !BOT_SCOPES.includes(s) && !USER_ONLY_SCOPES.includes(s))) return 'invalid_scope';
  const allowed = getSetting(ctx, 'app').redirect_urls;
  if (r.redirect_uri && allowed.length > 0 && !allowed.some((u) => r.redirect_uri!.startsWith(u))) return 'bad_redirect_uri';
  if (!r.redirect_uri && allowed.length === 0) return 'bad_redirect_uri';
  return undefined;
}

/** A person approved: the code the redirect carries. */
export function approve(ctx: TwinContext, user: User, r: AuthorizeRequest): string {
  const code = `${ctx.ids.bytes(6).readUIntBE(0, 6)}.${ctx.ids.bytes(6).readUIntBE(0, 6)}.${ctx.ids.bytes(32).toString('hex')}`;
  ctx.store.put('oauth_code', code, {
    code,
    user: user.id,
    scopes: r.scopes,
    user_scopes: r.user_scopes,
    redirect_uri: r.redirect_uri,
    issued_ms: Date.now(),
    used: false,
  } satisfies OAuthCode);
  return code;
}

export function exchange(
  ctx: TwinContext,
  args: { client_id?: string; client_secret?: string; code?: string; redirect_uri?: string },
): Record<string, unknown> {
  const creds = clientCredentials(ctx);
  if (!args.client_id || args.client_id !== creds.client_id) throw new SlackError('invalid_client_id');
  if (args.client_secret !== creds.client_secret) throw new SlackError('bad_client_secret');
  const c = args.code ? ctx.store.get<OAuthCode>('oauth_code', args.code) : undefined;
  if (!c) throw new SlackError('invalid_code');
  if (c.used) throw new SlackError('code_already_used');
  if (Date.now() - c.issued_ms > CODE_TTL_MS) throw new SlackError('invalid_code');
  if (c.redirect_uri && args.redirect_uri !== undefined && args.redirect_uri !== c.redirect_uri) throw new SlackError('bad_redirect_uri');
  ctx.store.put('oauth_code', c.code, { ...c, used: true });
  const installer = getUser(ctx, c.user);
  if (!installer) throw new SlackError('invalid_code');
  const team = currentTeam(ctx);
  const bot = botUser(ctx);
  const out: Record<string, unknown> = {
    app_id: bot.profile.api_app_id,
    authed_user: { id: installer.id },
    team: { id: team.id, name: team.name },
    enterprise: null,
    is_enterprise_install: false,
  };
  if (c.scopes.length > 0) {
    updateSetting(ctx, 'app', { bot_scopes: c.scopes });
    Object.assign(out, { scope: c.scopes.join(','), token_type: 'bot', access_token: ctx.apiKey, bot_user_id: bot.id });
  }
  if (c.user_scopes.length > 0) {
    const t = mintUserToken(ctx, installer.id, c.user_scopes);
    out.authed_user = { id: installer.id, scope: c.user_scopes.join(','), access_token: t.token, token_type: 'user' };
  }
  return out;
}
