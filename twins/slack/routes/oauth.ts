// OAuth v2 install: GET /oauth/v2/authorize (the twin's authorize page), POST /oauth/v2/authorize
// (a person approves → 302 to the redirect URI with `code` and `state`, or `error=access_denied`),
// oauth.v2.access; auth.revoke and auth.teams.list.

import type { TwinContext, TwinRequest, TwinResponse, TwinRoute } from '../../../twin-runtime/contract.js';
import { callArguments, type MethodTable } from '../wire/method.js';
import { Args } from '../wire/params.js';
import { SlackError } from '../wire/errors.js';
import { approve, authorizeError, exchange, type AuthorizeRequest } from '../model/oauth.js';
import type { TokenRecord } from '../model/tokens.js';
import { currentTeam, getUser } from '../model/workspace.js';
import type { User } from '../model/records.js';

function html(status: number, body: string): TwinResponse {
  return {
    status,
    headers: { 'content-type': 'text/html; charset=utf-8' },
    body: `<!doctype html><html><head><meta charset="utf-8"><title>Twin Workspace · Install</title></head><body>${body}</body></html>`,
  };
}

function esc(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function readAuthorize(args: Args): AuthorizeRequest {
  return {
    client_id: args.string('client_id') ?? '',
    scopes: args.list('scope'),
    user_scopes: args.list('user_scope'),
    redirect_uri: args.string('redirect_uri') ?? null,
    state: args.string('state') ?? '',
  };
}

function authorizePage(req: TwinRequest, ctx: TwinContext): TwinResponse {
  const args = new Args(callArguments(req));
  const r = readAuthorize(args);
  const bad = authorizeError(ctx, r);
  if (bad) return html(400, `<h1>Something went wrong</h1><p id="error">${esc(bad)}</p>`);
  const people = ctx.store.list<User>('user').filter((u) => !u.is_bot && !u.deleted);
  const hidden = (name: string, value: string) => `<input type="hidden" name="${name}" value="${esc(value)}">`;
  return html(
    200,
    `<h1>Install to ${esc(currentTeam(ctx).name)}</h1>` +
      `<p>Bot scopes: <code id="scope">${esc(r.scopes.join(','))}</code></p><p>User scopes: <code id="user_scope">${esc(r.user_scopes.join(','))}</code></p>` +
      `<form method="post" action="/oauth/v2/authorize">` +
      hidden('client_id', r.client_id) +
      hidden('scope', r.scopes.join(',')) +
      hidden('user_scope', r.user_scopes.join(',')) +
      hidden('redirect_uri', r.redirect_uri ?? '') +
      hidden('state', r.state) +
      `<label>Install as <select name="user">${people.map((p) => `<option value="${p.id}">${esc(p.real_name)}</option>`).join('')}</select></label>` +
      `<button name="decision" value="allow">Allow</button><button name="decision" value="deny">Cancel</button></form>`,
  );
}

function decide(req: TwinRequest, ctx: TwinContext): TwinResponse {
  const args = new Args(callArguments(req));
  const r = readAuthorize(args);
  const bad = authorizeError(ctx, r);
  if (bad) return html(400, `<h1>Something went wrong</h1><p id="error">${esc(bad)}</p>`);
  const target = new URL(r.redirect_uri!);
  if (args.string('decision') === 'deny') {
    target.searchParams.set('error', 'access_denied');
  } else {
    const user = getUser(ctx, args.string('user') ?? '');
    if (!user || user.is_bot || user.deleted) return html(400, '<h1>Something went wrong</h1><p id="error">user_not_found</p>');
    target.searchParams.set('code', approve(ctx, user, r));
  }
  if (r.state) target.searchParams.set('state', r.state);
  return { status: 302, headers: { location: target.toString(), 'content-type': 'text/html; charset=utf-8' }, body: '' };
}

export const oauthRoutes: TwinRoute[] = [
  { method: 'GET', path: '/oauth/v2/authorize', public: true, unmetered: true, handler: authorizePage },
  { method: 'POST', path: '/oauth/v2/authorize', public: true, unmetered: true, handler: decide },
];

export const oauthMethods: MethodTable = {
  'oauth.v2.access': ({ ctx, args, req }) => {
    // The client credentials may also come as HTTP Basic auth.
    let clientId = args.string('client_id');
    let clientSecret = args.string('client_secret');
    const basic = /^Basic\s+(\S+)$/i.exec(String(req.headers.authorization ?? ''));
    if (basic) {
      const [id, secret] = Buffer.from(basic[1]!, 'base64').toString('utf8').split(':');
      clientId ??= id;
      clientSecret ??= secret;
    }
    return exchange(ctx, { client_id: clientId, client_secret: clientSecret, code: args.string('code'), redirect_uri: args.string('redirect_uri') });
  },

  'auth.revoke': ({ ctx, who, args }) => {
    if (args.bool('test')) return { revoked: false };
    if (who.kind === 'user') {
      const rec = ctx.store.get<TokenRecord>('token', who.token);
      if (rec) ctx.store.put('token', who.token, { ...rec, revoked: true });
      return { revoked: true };
    }
    // The container's own bot token cannot be revoked (it is the twin's key).
    throw new SlackError('not_allowed_token_type');
  },

  'auth.teams.list': ({ ctx }) => {
    const team = currentTeam(ctx);
    return { teams: [{ id: team.id, name: team.name, icon: team.icon }], response_metadata: { next_cursor: '' } };
  },
};
