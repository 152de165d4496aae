// /v1/payment_links: create, retrieve, update, list, line items (model/payment-links.ts), and the
// page a link's `url` points at (`/b/{id}`, no key): each visit makes a Checkout Session and
// redirects (303) to the twin's hosted Checkout page, which completes it. Parameters the twin does
// not model are refused honestly (unread top-level ones by the pipeline, nested ones here).

import { html } from './hosted-page.js';
import type { TwinContext, TwinRequest, TwinResponse, TwinRoute } from '../../../twin-runtime/contract.js';
import { NotSimulated, operationName } from '../../../twin-runtime/fidelity.js';
import { ok } from '../wire/pipeline.js';
import { listBody, listEnvelope, readListWindow } from '../wire/list.js';
import { bool, expandPaths, int, obj, objArray, oneOf, paramsOf, readMetadata, readParams, requiredStr, str, type Params } from '../wire/params.js';
import type { StripeObject } from '../model/objects.js';
import { readPriceRef } from './prices.js';
import {
  createPaymentLink,
  listPaymentLinks,
  loadPaymentLink,
  presentPaymentLink,
  updatePaymentLink,
  visitPaymentLink,
  type PaymentLinkFields,
} from '../model/payment-links.js';

const expandOf = (req: TwinRequest): string[] => expandPaths(paramsOf(req));

function refuse(req: TwinRequest, param: string): never {
  throw new NotSimulated(`${operationName(req)} with ${param}`, 'The twin models payment links on existing prices with fixed quantities.');
}

function readFields(req: TwinRequest, p: Params): PaymentLinkFields {
  const ac = obj(p, 'after_completion');
  const redirect = ac ? obj(ac, 'redirect', 'after_completion') : undefined;
  const confirmation = ac ? obj(ac, 'hosted_confirmation', 'after_completion') : undefined;
  const at = obj(p, 'automatic_tax');
  if (at && bool(at, 'enabled', 'automatic_tax')) refuse(req, 'automatic_tax[enabled]');
  return {
    active: bool(p, 'active'),
    afterCompletion: ac && {
      type: oneOf(ac, 'type', ['hosted_confirmation', 'redirect'] as const, 'after_completion') ?? 'hosted_confirmation',
      redirectUrl: redirect ? requiredStr(redirect, 'url', 'after_completion[redirect]') : undefined,
      customMessage: confirmation ? str(confirmation, 'custom_message', 'after_completion[hosted_confirmation]') : undefined,
    },
    allowPromotionCodes: bool(p, 'allow_promotion_codes'),
    billingAddressCollection: oneOf(p, 'billing_address_collection', ['auto', 'required'] as const),
    customerCreation: oneOf(p, 'customer_creation', ['always', 'if_required'] as const),
    metadata: readMetadata(p),
    submitType: oneOf(p, 'submit_type', ['auto', 'book', 'donate', 'pay', 'subscribe'] as const),
  };
}

/** A payment link page: hosted-page.ts's answer around the link's own document. */
function linkPage(status: number, body: string): TwinResponse {
  return html(status, `<!doctype html><html lang="en"><meta charset="utf-8"><title>Payment link</title>${body}</html>`);
}

/** `GET /b/{id}`: a customer opens the link. */
function visit(req: TwinRequest, ctx: TwinContext): TwinResponse {
  const { link, session } = visitPaymentLink(ctx, req.params.id!);
  if (!link) return linkPage(404, '<h1>Payment link not found</h1>');
  if (!session) return linkPage(410, '<h1>This link is no longer active</h1><p>The seller has deactivated this payment link.</p>');
  return { status: 303, headers: { location: session.url as string, 'cache-control': 'no-store' } };
}

export const paymentLinkRoutes: TwinRoute[] = [
  {
    method: 'POST',
    path: '/v1/payment_links',
    handler: (req, ctx) => {
      const p = readParams(req);
      const lineItems = (objArray(p, 'line_items') ?? []).map((li, i) => {
        const prefix = `line_items[${i}]`;
        if (li.adjustable_quantity !== undefined) refuse(req, `${prefix}[adjustable_quantity]`);
        return { ...readPriceRef(li, prefix), quantity: int(li, 'quantity', prefix) };
      });
      return ok(presentPaymentLink(createPaymentLink(ctx, { ...readFields(req, p), lineItems }), expandOf(req)));
    },
  },
  {
    method: 'GET',
    path: '/v1/payment_links',
    handler: (req, ctx) => {
      const p = readParams(req);
      return ok(listEnvelope(listPaymentLinks(ctx, { active: bool(p, 'active') }, readListWindow(p)), '/v1/payment_links'));
    },
  },
  {
    method: 'GET',
    path: '/v1/payment_links/{payment_link}',
    handler: (req, ctx) => (readParams(req), ok(presentPaymentLink(loadPaymentLink(ctx, req.params.payment_link!), expandOf(req)))),
  },
  {
    method: 'POST',
    path: '/v1/payment_links/{payment_link}',
    handler: (req, ctx) => ok(presentPaymentLink(updatePaymentLink(ctx, req.params.payment_link!, readFields(req, readParams(req))), expandOf(req))),
  },
  {
    method: 'GET',
    path: '/v1/payment_links/{payment_link}/line_items',
    handler: (req, ctx) => {
      const p = readParams(req);
      const link = loadPaymentLink(ctx, req.params.payment_link!);
      const items = [...((link.line_items?.data ?? []) as StripeObject[])].reverse();
      return ok(listBody(p, items, `/v1/payment_links/${link.id}/line_items`));
    },
  },
  { method: 'GET', path: '/b/{id}', public: true, handler: visit },
];
