// Billing routes: subscriptions (+ items), invoices (+ preview, lines, finalize/pay/void), billing
// meters and meter events, checkout sessions (+ the twin-only completion helper and a minimal
// hosted page), test clocks, and the twin-only retry settings.

import type { TwinRequest, TwinResponse, TwinRoute } from '../../../twin-runtime/contract.js';
import { ok } from '../wire/pipeline.js';
import { listBody, listResponse, searchResponse } from '../wire/list.js';
import { LIST_PARAMS, SEARCH_PARAMS, expandPaths, paramsOf, readParams, requiredStr, str, type ParamSpec } from '../wire/params.js';
import { invalidRequest, resourceMissing } from '../wire/errors.js';
import { find, type StripeObject } from '../model/objects.js';
import {
  CANCEL_PARAMS,
  CREATE_PARAMS,
  LIST_FILTERS,
  UPDATE_PARAMS,
  cancelSubscriptionByRequest,
  createSubscription,
  filterSubscriptions,
  loadSubscription,
  updateSubscription,
} from '../model/subscriptions.js';
import {
  INVOICE_CREATE_PARAMS,
  INVOICE_LIST_FILTERS,
  INVOICE_UPDATE_PARAMS,
  DeclinedPayment,
  PAY_PARAMS,
  PREVIEW_PARAMS,
  addLinesByRequest,
  createInvoiceByRequest,
  deleteDraftInvoice,
  filterInvoices,
  finalizeInvoice,
  loadInvoice,
  markUncollectible,
  payInvoiceByRequest,
  presentInvoice,
  previewInvoice,
  retrySettings,
  saveRetrySettings,
  updateInvoiceByRequest,
  voidInvoice,
  type RetrySettings,
} from '../model/invoices.js';
import {
  METER_CREATE_PARAMS,
  METER_EVENT_PARAMS,
  SUMMARY_PARAMS,
  createMeter,
  createMeterEvent,
  eventSummaries,
  loadMeter,
  setMeterActive,
  updateMeter,
} from '../model/meters.js';
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
import { advanceTestClock, createTestClock, deleteTestClock, loadTestClock, presentClock } from '../model/test-clocks.js';

const expandOf = (req: TwinRequest): string[] => expandPaths(paramsOf(req));

/** Fields Stripe's search query language accepts for subscriptions and invoices. */
const SUBSCRIPTION_SEARCH_FIELDS = {
  created: (o: StripeObject) => o.created,
  status: (o: StripeObject) => o.status,
};
const INVOICE_SEARCH_FIELDS = {
  created: (o: StripeObject) => o.created,
  currency: (o: StripeObject) => o.currency,
  customer: (o: StripeObject) => o.customer,
  number: (o: StripeObject) => o.number,
  receipt_number: (o: StripeObject) => o.receipt_number,
  status: (o: StripeObject) => o.status,
  subscription: (o: StripeObject) => o.subscription,
  total: (o: StripeObject) => o.total,
};

/** `POST /v1/subscription_items[/{id}]` parameters (applied through the subscription update). */
const ITEM_PARAMS: ParamSpec = {
  subscription: true,
  price: true,
  quantity: true,
  metadata: true,
  proration_behavior: true,
  proration_date: true,
  payment_behavior: true,
  tax_rates: true,
  discounts: true,
};

const subscriptionRoutes: TwinRoute[] = [
  { method: 'POST', path: '/v1/subscriptions', handler: (req, ctx) => ok(createSubscription(ctx, readParams(req, CREATE_PARAMS))) },
  {
    method: 'GET',
    path: '/v1/subscriptions/search',
    handler: (req, ctx) => {
      readParams(req, SEARCH_PARAMS);
      return searchResponse(req, ctx, ctx.store.list<StripeObject>('subscription'), '/v1/subscriptions/search', SUBSCRIPTION_SEARCH_FIELDS, 'subscriptions');
    },
  },
  {
    method: 'GET',
    path: '/v1/subscriptions',
    handler: (req, ctx) => {
      const p = readParams(req, { ...LIST_PARAMS, ...LIST_FILTERS });
      return listResponse(req, ctx, filterSubscriptions(ctx, p), '/v1/subscriptions');
    },
  },
  {
    method: 'GET',
    path: '/v1/subscriptions/{id}',
    handler: (req, ctx) => {
      readParams(req, {});
      return ok(loadSubscription(ctx, req.params.id!));
    },
  },
  { method: 'POST', path: '/v1/subscriptions/{id}', handler: (req, ctx) => ok(updateSubscription(ctx, req.params.id!, readParams(req, UPDATE_PARAMS))) },
  { method: 'DELETE', path: '/v1/subscriptions/{id}', handler: (req, ctx) => ok(cancelSubscriptionByRequest(ctx, req.params.id!, readParams(req, CANCEL_PARAMS))) },
  {
    method: 'GET',
    path: '/v1/subscription_items',
    handler: (req, ctx) => {
      const p = readParams(req, { ...LIST_PARAMS, subscription: true });
      const sub = loadSubscription(ctx, requiredStr(p, 'subscription'), 'subscription');
      return ok(listBody(p, [...(sub.items.data as StripeObject[])].reverse(), '/v1/subscription_items'));
    },
  },
  {
    method: 'POST',
    path: '/v1/subscription_items',
    handler: (req, ctx) => {
      const p = readParams(req, ITEM_PARAMS);
      const subId = requiredStr(p, 'subscription');
      const { subscription: _s, proration_behavior: pb, proration_date: _d, payment_behavior: _b, ...item } = p;
      const sub = updateSubscription(ctx, subId, { items: [item], ...(pb !== undefined ? { proration_behavior: pb } : {}) });
      const items = sub.items.data as StripeObject[];
      return ok(items[items.length - 1]);
    },
  },
  {
    method: 'POST',
    path: '/v1/subscription_items/{id}',
    handler: (req, ctx) => {
      const p = readParams(req, ITEM_PARAMS);
      const item = find(ctx, 'subscription_item', req.params.id!);
      if (!item) throw resourceMissing('subscription_item', req.params.id!, 'id');
      const { proration_behavior: pb, proration_date: _d, payment_behavior: _b, subscription: _s, ...change } = p;
      const sub = updateSubscription(ctx, item.subscription, { items: [{ ...change, id: item.id }], ...(pb !== undefined ? { proration_behavior: pb } : {}) });
      return ok((sub.items.data as StripeObject[]).find((i) => i.id === item.id));
    },
  },
  {
    method: 'DELETE',
    path: '/v1/subscription_items/{id}',
    handler: (req, ctx) => {
      readParams(req, { proration_behavior: true, proration_date: true, clear_usage: true });
      const item = find(ctx, 'subscription_item', req.params.id!);
      if (!item) throw resourceMissing('subscription_item', req.params.id!, 'id');
      updateSubscription(ctx, item.subscription, { items: [{ id: item.id, deleted: 'true' }] });
      return ok({ id: item.id, object: 'subscription_item', deleted: true });
    },
  },
  {
    method: 'GET',
    path: '/v1/subscription_items/{id}',
    handler: (req, ctx) => {
      readParams(req, {});
      const item = find(ctx, 'subscription_item', req.params.id!);
      if (!item) throw resourceMissing('subscription_item', req.params.id!, 'id');
      return ok(item);
    },
  },
];

const invoiceRoutes: TwinRoute[] = [
  { method: 'POST', path: '/v1/invoices/create_preview', handler: (req, ctx) => ok(previewInvoice(ctx, readParams(req, PREVIEW_PARAMS))) },
  {
    method: 'GET',
    path: '/v1/invoices/search',
    handler: (req, ctx) => {
      readParams(req, SEARCH_PARAMS);
      const all = ctx.store.list<StripeObject>('invoice').map((i) => presentInvoice(i as any));
      return searchResponse(req, ctx, all, '/v1/invoices/search', INVOICE_SEARCH_FIELDS, 'invoices');
    },
  },
  {
    // The page a finalized invoice's `hosted_invoice_url` points at: a plain summary.
    method: 'GET',
    path: '/i/{id}',
    public: true,
    handler: (req, ctx): TwinResponse => {
      const inv = find(ctx, 'invoice', req.params.id!);
      const html = (b: string, status = 200): TwinResponse => ({ status, headers: { 'content-type': 'text/html; charset=utf-8' }, body: b });
      if (!inv || inv.status === 'draft') return html('<h1>Invoice not found</h1>', 404);
      const esc = (v: unknown) => String(v ?? '').replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
      const rows = (inv.lines.data as StripeObject[]).map((l) => `<tr><td>${esc(l.description)}</td><td>${esc(l.amount)}</td></tr>`).join('');
      return html(
        `<!doctype html><title>Invoice ${esc(inv.number)}</title><h1>Invoice ${esc(inv.number)}</h1><p>Status: ${esc(inv.status)}</p>` +
          `<table>${rows}</table><p>Amount due: ${esc(inv.amount_due)} ${esc(inv.currency)}; remaining: ${esc(inv.amount_remaining)}</p>`,
      );
    },
  },
  { method: 'POST', path: '/v1/invoices', handler: (req, ctx) => ok(presentInvoice(createInvoiceByRequest(ctx, readParams(req, INVOICE_CREATE_PARAMS)))) },
  {
    method: 'GET',
    path: '/v1/invoices',
    handler: (req, ctx) => {
      const p = readParams(req, { ...LIST_PARAMS, ...INVOICE_LIST_FILTERS });
      return listResponse(req, ctx, filterInvoices(ctx, p), '/v1/invoices');
    },
  },
  {
    method: 'GET',
    path: '/v1/invoices/{id}',
    handler: (req, ctx) => {
      readParams(req, {});
      return ok(presentInvoice(loadInvoice(ctx, req.params.id!)));
    },
  },
  { method: 'POST', path: '/v1/invoices/{id}', handler: (req, ctx) => ok(presentInvoice(updateInvoiceByRequest(ctx, req.params.id!, readParams(req, INVOICE_UPDATE_PARAMS)))) },
  { method: 'DELETE', path: '/v1/invoices/{id}', handler: (req, ctx) => (readParams(req, {}), ok(deleteDraftInvoice(ctx, req.params.id!))) },
  {
    method: 'GET',
    path: '/v1/invoices/{id}/lines',
    handler: (req, ctx) => {
      const p = readParams(req, LIST_PARAMS);
      const inv = loadInvoice(ctx, req.params.id!, 'invoice');
      // Lines keep invoice order (first line first), unlike newest-first object lists.
      const lines = [...(inv.lines.data as StripeObject[])].reverse().map((l, i) => ({ ...l, created: i }));
      const body = listBody(p, lines, `/v1/invoices/${inv.id}/lines`);
      return ok({ ...body, data: body.data.map(({ created: _c, ...l }) => l) });
    },
  },
  {
    method: 'POST',
    path: '/v1/invoices/{id}/finalize',
    handler: (req, ctx) => {
      const p = readParams(req, { auto_advance: true });
      const auto = p.auto_advance === undefined ? undefined : p.auto_advance === 'true' || p.auto_advance === true;
      return ok(presentInvoice(finalizeInvoice(ctx, req.params.id!, { collect: false, autoAdvance: auto })));
    },
  },
  {
    method: 'POST',
    path: '/v1/invoices/{id}/pay',
    handler: (req, ctx) => {
      const out = payInvoiceByRequest(ctx, req.params.id!, readParams(req, PAY_PARAMS));
      return out instanceof DeclinedPayment ? out.response : ok(presentInvoice(out));
    },
  },
  { method: 'POST', path: '/v1/invoices/{id}/void', handler: (req, ctx) => (readParams(req, {}), ok(presentInvoice(voidInvoice(ctx, req.params.id!)))) },
  {
    method: 'POST',
    path: '/v1/invoices/{id}/mark_uncollectible',
    handler: (req, ctx) => (readParams(req, {}), ok(presentInvoice(markUncollectible(ctx, req.params.id!)))),
  },
  {
    method: 'POST',
    path: '/v1/invoices/{id}/add_lines',
    handler: (req, ctx) => ok(presentInvoice(addLinesByRequest(ctx, req.params.id!, readParams(req, { lines: true, invoice_metadata: true })))),
  },
];

const meterRoutes: TwinRoute[] = [
  { method: 'POST', path: '/v1/billing/meters', handler: (req, ctx) => ok(createMeter(ctx, readParams(req, METER_CREATE_PARAMS))) },
  {
    method: 'GET',
    path: '/v1/billing/meters',
    handler: (req, ctx) => {
      const p = readParams(req, { ...LIST_PARAMS, status: true });
      const status = str(p, 'status');
      const meters = ctx.store.list<StripeObject>('billing_meter').filter((m) => !status || m.status === status);
      return listResponse(req, ctx, meters, '/v1/billing/meters');
    },
  },
  { method: 'GET', path: '/v1/billing/meters/{id}', handler: (req, ctx) => (readParams(req, {}), ok(loadMeter(ctx, req.params.id!))) },
  { method: 'POST', path: '/v1/billing/meters/{id}', handler: (req, ctx) => ok(updateMeter(ctx, req.params.id!, readParams(req, { display_name: true }))) },
  { method: 'POST', path: '/v1/billing/meters/{id}/deactivate', handler: (req, ctx) => (readParams(req, {}), ok(setMeterActive(ctx, req.params.id!, false))) },
  { method: 'POST', path: '/v1/billing/meters/{id}/reactivate', handler: (req, ctx) => (readParams(req, {}), ok(setMeterActive(ctx, req.params.id!, true))) },
  {
    method: 'GET',
    path: '/v1/billing/meters/{id}/event_summaries',
    handler: (req, ctx) => {
      const p = readParams(req, SUMMARY_PARAMS);
      return ok(listBody(p, eventSummaries(ctx, req.params.id!, p).reverse(), `/v1/billing/meters/${req.params.id}/event_summaries`));
    },
  },
  { method: 'POST', path: '/v1/billing/meter_events', handler: (req, ctx) => ok(createMeterEvent(ctx, readParams(req, METER_EVENT_PARAMS))) },
];

const checkoutRoutes: TwinRoute[] = [
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

const testClockRoutes: TwinRoute[] = [
  { method: 'POST', path: '/v1/test_helpers/test_clocks', handler: (req, ctx) => ok(createTestClock(ctx, readParams(req, { frozen_time: true, name: true }))) },
  {
    method: 'GET',
    path: '/v1/test_helpers/test_clocks',
    handler: (req, ctx) => {
      readParams(req, LIST_PARAMS);
      return listResponse(req, ctx, ctx.store.list<StripeObject>('test_clock').map((c) => presentClock(ctx, c)), '/v1/test_helpers/test_clocks');
    },
  },
  { method: 'GET', path: '/v1/test_helpers/test_clocks/{id}', handler: (req, ctx) => (readParams(req, {}), ok(presentClock(ctx, loadTestClock(ctx, req.params.id!)))) },
  { method: 'DELETE', path: '/v1/test_helpers/test_clocks/{id}', handler: (req, ctx) => (readParams(req, {}), ok(deleteTestClock(ctx, req.params.id!))) },
  { method: 'POST', path: '/v1/test_helpers/test_clocks/{id}/advance', handler: (req, ctx) => ok(advanceTestClock(ctx, req.params.id!, readParams(req, { frozen_time: true }))) },
];

const SETTINGS_PARAMS: ParamSpec = { retry_days: true, subscription_after_final_failure: true, invoice_after_final_failure: true };

/**
 * Twin-only: the dashboard's "Revenue recovery → Retries" settings. GET answers them; POST changes
 * `retry_days[]` (days after each failed attempt), `subscription_after_final_failure`
 * (`cancel` | `unpaid` | `past_due`) and `invoice_after_final_failure` (`past_due` | `uncollectible`).
 */
const settingsRoutes: TwinRoute[] = [
  { method: 'GET', path: '/v1/test_helpers/billing_settings', handler: (req, ctx) => (readParams(req, {}), ok({ object: 'twin.billing_settings', ...retrySettings(ctx) })) },
  {
    method: 'POST',
    path: '/v1/test_helpers/billing_settings',
    handler: (req, ctx) => {
      const p = readParams(req, SETTINGS_PARAMS);
      const s: RetrySettings = { ...retrySettings(ctx) };
      if (p.retry_days !== undefined) {
        const raw = p.retry_days === '' ? [] : Array.isArray(p.retry_days) ? p.retry_days : Object.values(p.retry_days as object);
        const days = raw.map(Number);
        if (days.length > 8 || days.some((d) => !Number.isInteger(d) || d < 1 || d > 30)) {
          throw invalidRequest('retry_days must list up to 8 whole numbers of days between 1 and 30.', 'retry_days');
        }
        s.retry_days = days;
      }
      const sub = str(p, 'subscription_after_final_failure');
      if (sub !== undefined) {
        if (!['cancel', 'unpaid', 'past_due'].includes(sub)) throw invalidRequest('Invalid subscription_after_final_failure: must be one of cancel, unpaid, or past_due', 'subscription_after_final_failure');
        s.subscription_after_final_failure = sub as RetrySettings['subscription_after_final_failure'];
      }
      const inv = str(p, 'invoice_after_final_failure');
      if (inv !== undefined) {
        if (!['past_due', 'uncollectible'].includes(inv)) throw invalidRequest('Invalid invoice_after_final_failure: must be one of past_due, or uncollectible', 'invoice_after_final_failure');
        s.invoice_after_final_failure = inv as RetrySettings['invoice_after_final_failure'];
      }
      saveRetrySettings(ctx, s);
      return ok({ object: 'twin.billing_settings', ...s });
    },
  },
];

export const billingRoutes: TwinRoute[] = [
  ...subscriptionRoutes,
  ...invoiceRoutes,
  ...meterRoutes,
  ...checkoutRoutes,
  ...testClockRoutes,
  ...settingsRoutes,
];
