// The tools of Stripe's MCP server as @stripe/agent-toolkit defines them (the toolkit behind
// `@stripe/mcp`, pinned in spec/mcp-tools.json by scripts/gen/stripe-mcp-tools.ts), each making the
// Stripe API request the toolkit's own `execute` makes (`create_customer` is `POST /v1/customers`),
// through the twin's REST routes: the same state, events and request-log rows as the SDK call. The
// result is what the toolkit returns (`{id}` for a created customer, the list's `data`…). Where the
// toolkit answers a Stripe error with a success text ("Failed to create customer"), the twin
// answers the same sentence with the Stripe message as an MCP tool error.

import type { TwinApi, TwinMcp } from '../../../twin-runtime/contract.js';
import {
  definedOnly,
  fillPath,
  lazyMcp,
  McpToolError,
  publishedTools,
  readPinnedTools,
  type McpToolAnswer,
  type PublishedTool,
} from '../../../twin-runtime/mcp.js';

type Args = Record<string, unknown>;
type Obj = Record<string, unknown>;

/** A Stripe call as the toolkit makes it, its failure worded as the toolkit words it. */
function stripeCall(
  failure: string,
  method: 'GET' | 'POST' | 'DELETE',
  template: string,
  params: (a: Args) => Obj,
  shape: (out: Obj, a: Args) => unknown = (out) => out,
): McpToolAnswer {
  return {
    operations: [`${method} ${template}`],
    async call(a: Args, api: TwinApi) {
      const path = fillPath(template, a);
      const body = definedOnly(params(a));
      let out: unknown;
      try {
        out = await api.json(method, path, method === 'GET' ? { query: flatQuery(body) } : { form: body });
      } catch (e) {
        if (e instanceof McpToolError) throw new McpToolError(`${failure}: ${e.message}`);
        throw e;
      }
      return shape(out as Obj, a);
    },
  };
}

/** List parameters are flat scalars in these tools. */
function flatQuery(params: Obj): Record<string, string | number | boolean | undefined> {
  return Object.fromEntries(Object.entries(params).map(([k, v]) => [k, v as string | number | boolean]));
}

const data = (out: Obj) => out.data as Obj[];
const pick =
  (...keys: string[]) =>
  (o: Obj) =>
    Object.fromEntries(keys.map((k) => [k, o[k]]));

const ANSWERS: Record<string, McpToolAnswer> = {
  create_customer: stripeCall('Failed to create customer', 'POST', '/v1/customers', (a) => ({ name: a.name, email: a.email }), pick('id')),
  list_customers: stripeCall(
    'Failed to list customers',
    'GET',
    '/v1/customers',
    (a) => ({ limit: a.limit, email: a.email }),
    (out) => data(out).map(pick('id')),
  ),
  create_product: stripeCall('Failed to create product', 'POST', '/v1/products', (a) => ({ name: a.name, description: a.description })),
  list_products: stripeCall('Failed to list products', 'GET', '/v1/products', (a) => ({ limit: a.limit }), data),
  create_price: stripeCall('Failed to create price', 'POST', '/v1/prices', (a) => ({ product: a.product, unit_amount: a.unit_amount, currency: a.currency })),
  list_prices: stripeCall('Failed to list prices', 'GET', '/v1/prices', (a) => ({ product: a.product, limit: a.limit }), data),
  create_payment_link: stripeCall(
    'Failed to create payment link',
    'POST',
    '/v1/payment_links',
    (a) => ({
      line_items: [{ price: a.price, quantity: a.quantity }],
      ...(a.redirect_url ? { after_completion: { type: 'redirect', redirect: { url: a.redirect_url } } } : {}),
    }),
    pick('id', 'url'),
  ),
  create_invoice: stripeCall(
    'Failed to create invoice',
    'POST',
    '/v1/invoices',
    (a) => ({ customer: a.customer, days_until_due: a.days_until_due, collection_method: 'send_invoice' }),
    (o) => ({ id: o.id, url: o.hosted_invoice_url, customer: o.customer, status: o.status }),
  ),
  list_invoices: stripeCall('Failed to list invoices', 'GET', '/v1/invoices', (a) => ({ customer: a.customer, limit: a.limit }), data),
  create_invoice_item: stripeCall(
    'Failed to create invoice item',
    'POST',
    '/v1/invoiceitems',
    (a) => ({ customer: a.customer, price: a.price, invoice: a.invoice }),
    pick('id', 'invoice'),
  ),
  finalize_invoice: stripeCall(
    'Failed to finalize invoice',
    'POST',
    '/v1/invoices/{invoice}/finalize',
    () => ({}),
    (o) => ({ id: o.id, url: o.hosted_invoice_url, customer: o.customer, status: o.status }),
  ),
  retrieve_balance: stripeCall('Failed to retrieve balance', 'GET', '/v1/balance', () => ({})),
  create_refund: stripeCall(
    'Failed to create refund',
    'POST',
    '/v1/refunds',
    (a) => ({ payment_intent: a.payment_intent, amount: a.amount }),
    pick('id', 'status', 'amount'),
  ),
  list_payment_intents: stripeCall('Failed to list payment intents', 'GET', '/v1/payment_intents', (a) => ({ customer: a.customer, limit: a.limit }), data),
  list_subscriptions: stripeCall(
    'Failed to list subscriptions',
    'GET',
    '/v1/subscriptions',
    (a) => ({ customer: a.customer, price: a.price, status: a.status, limit: a.limit }),
    data,
  ),
  cancel_subscription: stripeCall('Failed to cancel subscription', 'DELETE', '/v1/subscriptions/{subscription}', () => ({})),
  update_subscription: stripeCall('Failed to update subscription', 'POST', '/v1/subscriptions/{subscription}', (a) => ({
    proration_behavior: a.proration_behavior,
    items: a.items,
  })),
  list_coupons: stripeCall(
    'Failed to list coupons',
    'GET',
    '/v1/coupons',
    (a) => ({ limit: a.limit }),
    (out) => data(out).map(pick('id', 'name', 'percent_off', 'amount_off', 'duration')),
  ),
  create_coupon: stripeCall(
    'Failed to create coupon',
    'POST',
    '/v1/coupons',
    (a) => ({
      name: a.name,
      percent_off: a.percent_off,
      amount_off: a.amount_off,
      currency: a.currency,
      duration: a.duration,
      duration_in_months: a.duration_in_months,
    }),
    pick('id'),
  ),
  list_disputes: stripeCall(
    'Failed to list disputes',
    'GET',
    '/v1/disputes',
    (a) => ({ charge: a.charge, payment_intent: a.payment_intent, limit: a.limit }),
    (out) => data(out).map(pick('id')),
  ),
  update_dispute: stripeCall('Failed to update dispute', 'POST', '/v1/disputes/{dispute}', (a) => ({ evidence: a.evidence, submit: a.submit }), pick('id')),
  // search_stripe_documentation asks Stripe's documentation service, which no twin stands in for.
};

/** The agent toolkit's tools as published, each answered through the twin's REST routes (all but the documentation search). */
export const stripeMcp: TwinMcp = lazyMcp(() => {
  const published = readPinnedTools<{ source: string; package: string; version: string; server: { name: string; version: string }; tools: PublishedTool[] }>(
    new URL('../spec/mcp-tools.json', import.meta.url),
  );
  return {
    server: {
      name: published.package,
      version: published.version,
      source: `${published.source} (server ${published.server.name} ${published.server.version})`,
    },
    implementation: published.server,
    tools: publishedTools(published.tools, ANSWERS),
  };
});
