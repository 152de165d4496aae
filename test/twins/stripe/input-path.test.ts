// Stripe's one input path (twins/stripe/wire/input.ts), driven with the official SDK: hand-written
// and generic routes read parameters through the spec's operation table under one policy —
// unknown parameters refused as Stripe refuses them, values checked against the spec, parameters
// of the SDK's API version taken, a parameter the model does not apply refused honestly rather
// than dropped, and operations Stripe removed answered as Stripe answers them now.

import t from 'tap';
import Stripe from 'stripe';
import { startTwin, type RunningTwin } from '../../helpers/twin.js';

let twin: RunningTwin;
let stripe: Stripe;

t.before(async () => {
  twin = await startTwin('stripe', { clockStart: new Date('2026-01-01T00:00:00Z') });
  stripe = new Stripe(twin.apiKey, { host: '127.0.0.1', port: Number(new URL(twin.url).port), protocol: 'http', maxNetworkRetries: 0 });
});
t.teardown(() => twin.close());

async function raw(method: string, path: string, body?: string): Promise<{ status: number; fidelity: string | null; json: any }> {
  const res = await fetch(`${twin.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${twin.apiKey}`, ...(body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
    body,
  });
  return { status: res.status, fidelity: res.headers.get('twin-fidelity'), json: await res.json() };
}

t.test('an unknown parameter is refused as Stripe refuses it, nested ones included, on hand and generic routes', async (t) => {
  const top = await stripe.customers.create({ email: 'a@example.com', nickname: 'x' } as never).catch((e) => e);
  t.equal(top.statusCode, 400);
  t.equal(top.code, 'parameter_unknown');
  t.equal(top.param, 'nickname');
  t.equal(top.message, 'Received unknown parameter: nickname');

  const nested = await stripe.customers.create({ address: { line1: '1 Main St', planet: 'Mars' } } as never).catch((e) => e);
  t.equal(nested.code, 'parameter_unknown');
  t.equal(nested.param, 'address[planet]');

  // A generic route (shipping rates have no hand-written model) under the same policy.
  const generic = await stripe.shippingRates
    .create({ display_name: 'Ground', type: 'fixed_amount', fixed_amount: { amount: 500, currency: 'usd' }, speed: 'fast' } as never)
    .catch((e) => e);
  t.equal(generic.code, 'parameter_unknown');
  t.equal(generic.param, 'speed');
});

t.test('values are checked and coerced against the spec', async (t) => {
  const bad = await stripe.customers.create({ balance: 'lots' as never }).catch((e) => e);
  t.equal(bad.statusCode, 400);
  t.equal(bad.param, 'balance');
  t.match(bad.message, /Invalid integer: lots/);
  const customer = await stripe.customers.create({ balance: 250, email: 'b@example.com' });
  t.equal(customer.balance, 250, 'the form string "250" reached the model as a number');
});

t.test("a parameter of the SDK's API version the model does not apply is refused, not dropped", async (t) => {
  const before = (await stripe.customers.list({ limit: 100 })).data.length;
  const r = await raw('POST', '/v1/customers', 'email=c%40example.com&individual_name=Ada');
  t.equal(r.status, 501, 'an honest refusal, not a 200 that ignored individual_name');
  t.equal(r.fidelity, 'unsupported');
  t.equal(r.json.error.type, 'api_error');
  t.match(r.json.error.message, /does not simulate POST \/v1\/customers with individual_name/);
  t.equal((await stripe.customers.list({ limit: 100 })).data.length, before, 'the refused create left nothing behind');
});

t.test('operations Stripe removed before the SDK version are not answered with a blank success', async (t) => {
  // `upcoming` is now just an invoice id the retrieve route does not know.
  const upcoming = await raw('GET', '/v1/invoices/upcoming?customer=cus_x');
  t.equal(upcoming.status, 400);
  t.equal(upcoming.json.error.code, 'parameter_unknown');
  const noParams = await raw('GET', '/v1/invoices/upcoming');
  t.equal(noParams.status, 404);
  t.equal(noParams.json.error.message, "No such invoice: 'upcoming'");
  const usage = await raw('POST', '/v1/subscription_items/si_x/usage_records', 'quantity=1');
  t.equal(usage.status, 404);
  t.match(usage.json.error.message, /^Unrecognized request URL \(POST: \/v1\/subscription_items\/si_x\/usage_records\)/);
});
