// The caller's preferences: `GET|PUT|DELETE /mypreferences?key=` (the value as plain text, as
// Jira takes it) and `GET|PUT|DELETE /mypreferences/locale`.

import type { TwinRequest, TwinResponse, TwinRoute } from '../../../twin-runtime/contract.js';
import { getPreference, locale, removePreference, resetLocale, setLocale, setPreference } from '../model/preferences.js';
import { param } from '../wire/params.js';

const P = '/rest/api/3/mypreferences';
const key = (req: TwinRequest) => String(param(req, 'key') ?? '');

/** The body as Jira reads it: plain text, or a JSON string (what JSON clients send). */
function textBody(req: TwinRequest): string {
  const raw = req.rawBody.toString('utf8');
  try {
    const v: unknown = JSON.parse(raw);
    if (typeof v === 'string') return v;
  } catch {
    // plain text
  }
  return raw;
}

const json = (body: unknown): TwinResponse => ({ status: 200, headers: { 'content-type': 'application/json;charset=UTF-8' }, body });

export const preferenceRoutes: TwinRoute[] = [
  { method: 'GET', path: P, handler: (req, ctx) => json(getPreference(ctx, key(req))) },
  {
    method: 'PUT',
    path: P,
    handler(req, ctx) {
      setPreference(ctx, key(req), textBody(req));
      return { status: 204 };
    },
  },
  {
    method: 'DELETE',
    path: P,
    handler(req, ctx) {
      removePreference(ctx, key(req));
      return { status: 204 };
    },
  },
  { method: 'GET', path: `${P}/locale`, handler: (_req, ctx) => json({ locale: locale(ctx) }) },
  {
    method: 'PUT',
    path: `${P}/locale`,
    handler(req, ctx) {
      setLocale(ctx, req.body.locale);
      return { status: 204 };
    },
  },
  {
    method: 'DELETE',
    path: `${P}/locale`,
    handler(_req, ctx) {
      resetLocale(ctx);
      return { status: 204 };
    },
  },
];
