// /v1/checkout/sessions (create, retrieve, update, expire, list, line items), the twin-only
// completion helper, and the minimal hosted page a session's `url` points at.

import type { TwinRequest, TwinResponse, TwinRoute } from '../../../twin-runtime/contract.js';
import { ok } from '../wire/pipeline.js';
import { listBody, listResponse } from '../wire/list.js';
import { LIST_PARAMS, expandPaths, paramsOf, readParams } from '../wire/params.js';
import { find, type StripeObject } from '../model/objects.js';
import {
  COMPLETE_PARAMS,
  SESSION_CREATE_PARAMS,
  SESSION_LIST_FILTERS,
  completeSession,
  createSession,
  expireSession,
  filterSessions,
  loadSession,
  presentSession,
  updateSession,
} from '../model/checkout.js';

const expandOf = (req: TwinRequest): string[] => expandPaths(paramsOf(req));

export const checkoutRoutes: TwinRoute[] = [
  { method: 'POST', path: '/v1/checkout/sessions', handler: (req, ctx) => ok(presentSession(createSession(ctx, readParams(req, SESSION_CREATE_PARAMS)), expandOf(req))) },
  {
    method: 'GET',
    path: '/v1/checkout/sessions',
    handler: (req, ctx) => {
      const p = readParams(req, { ...LIST_PARAMS, ...SESSION_LIST_FILTERS });
      return listResponse(req, ctx, filterSessions(ctx, p), '/v1/checkout/sessions');
    },
  },
  { method: 'GET', path: '/v1/checkout/sessions/{id}', handler: (req, ctx) => (readParams(req, {}), ok(presentSession(loadSession(ctx, req.params.id!), expandOf(req)))) },
  { method: 'POST', path: '/v1/checkout/sessions/{id}', handler: (req, ctx) => ok(presentSession(updateSession(ctx, req.params.id!, readParams(req, { metadata: true })), expandOf(req))) },
  { method: 'POST', path: '/v1/checkout/sessions/{id}/expire', handler: (req, ctx) => (readParams(req, {}), ok(presentSession(expireSession(ctx, req.params.id!), expandOf(req)))) },
  {
    method: 'GET',
    path: '/v1/checkout/sessions/{id}/line_items',
    handler: (req, ctx) => {
      const p = readParams(req, LIST_PARAMS);
      const s = loadSession(ctx, req.params.id!);
      const items = [...((s.line_items?.data ?? []) as StripeObject[])].reverse();
      return ok(listBody(p, items, `/v1/checkout/sessions/${s.id}/line_items`));
    },
  },
  {
    // Twin-only: complete the session as the customer would (see docs in model/checkout.ts).
    method: 'POST',
    path: '/v1/test_helpers/checkout/sessions/{id}/complete',
    handler: (req, ctx) => ok(presentSession(completeSession(ctx, req.params.id!, readParams(req, COMPLETE_PARAMS)), expandOf(req))),
  },
  {
    // The hosted page a session's `url` points at: a summary and a button paying with a test card.
    method: 'GET',
    path: '/c/pay/{id}',
    public: true,
    handler: (req, ctx) => {
      const s = find(ctx, 'checkout_session', req.params.id!);
      if (!s) return { status: 404, headers: { 'content-type': 'text/html; charset=utf-8' }, body: '<h1>Checkout session not found</h1>' };
      const esc = (v: unknown) => String(v ?? '').replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
      const lines = ((s.line_items?.data ?? []) as StripeObject[]).map((li) => `<li>${esc(li.quantity)} × ${esc(li.description)}</li>`).join('');
      const body =
        s.status === 'open'
          ? `<form method="post"><button type="submit">Pay with test card 4242</button></form>`
          : `<p>This session is ${esc(s.status)}.</p>`;
      return {
        status: 200,
        headers: { 'content-type': 'text/html; charset=utf-8' },
        body: `<!doctype html><title>Checkout</title><h1>Twin checkout (${esc(s.mode)})</h1><ul>${lines}</ul>${body}`,
      };
    },
  },
  {
    method: 'POST',
    path: '/c/pay/{id}',
    public: true,
    handler: (req, ctx): TwinResponse => {
      const s = find(ctx, 'checkout_session', req.params.id!);
      if (!s || s.status !== 'open') return { status: 409, headers: { 'content-type': 'text/html; charset=utf-8' }, body: '<p>This session is not open.</p>' };
      const done = completeSession(ctx, s.id, {});
      const target = (done.success_url as string | null)?.replace('{CHECKOUT_SESSION_ID}', done.id);
      return target ? { status: 303, headers: { location: target } } : { status: 200, headers: { 'content-type': 'text/html; charset=utf-8' }, body: '<p>Payment complete.</p>' };
    },
  },
];
