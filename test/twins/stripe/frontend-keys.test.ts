// Frontend-side calls with the official SDK through the recording gateway: the publishable key the
// credential endpoint answers beside the secret key, what it may call (payment methods, retrieve
// and confirm of payment and setup intents with their client_secret) and what it may not; customer
// sessions and ephemeral keys created with the secret key.

import t from 'tap';
import Stripe from 'stripe';
import { startGatewayTwin } from '../../helpers/gateway-twin.js';
import { startWebhookReceiver } from './webhook-receiver.js';

const gw = await startGatewayTwin('stripe', { clockStart: new Date('2026-03-02T09:00:00Z') });
const url = new URL(gw.url);
const sdk = (key: string) => new Stripe(key, { host: url.hostname, port: Number(url.port), protocol: 'http', maxNetworkRetries: 0 });
const stripe = sdk(gw.apiKey);
const hooks = await startWebhookReceiver(stripe);
t.teardown(async () => {
  await hooks.close();
  await gw.close();
});

const publishableKey: string = gw.twin.server.host.credential().publishable_key!;
const browser = sdk(publishableKey);

t.test('the credential endpoint answers a publishable key beside the secret key', async (t) => {
  t.match(publishableKey, /^pk_test_[A-Za-z0-9]{99}$/);
  t.not(publishableKey.slice(8), gw.apiKey.slice(8));
  const res = await fetch(`${gw.twin.url}/_twin/credential`);
  t.equal(res.status, 200);
  const credential = (await res.json()) as Record<string, string>;
  t.equal(credential.api_key, gw.apiKey);
  t.equal(credential.publishable_key, publishableKey, 'the admin API answers it beside the secret key');
});

t.test('Stripe.js calls work with the publishable key and the client_secret', async (t) => {
  const pi = await stripe.paymentIntents.create({ amount: 2_500, currency: 'usd', automatic_payment_methods: { enabled: true, allow_redirects: 'never' } });
  const pm = await browser.paymentMethods.create({ type: 'card', card: { token: 'tok_visa' } });
  t.match(pm.id, /^pm_/);
  const seen = await browser.paymentIntents.retrieve(pi.id, { client_secret: pi.client_secret! });
  t.equal(seen.status, 'requires_payment_method');
  const confirmed = await browser.paymentIntents.confirm(pi.id, {
    payment_method: pm.id,
    client_secret: pi.client_secret!,
  } as Stripe.PaymentIntentConfirmParams);
  t.equal(confirmed.status, 'succeeded');
  const hook = await hooks.waitFor('payment_intent.succeeded', (o) => o.id === pi.id);
  t.equal((hook.data.object as Stripe.PaymentIntent).amount_received, 2_500);

  const seti = await stripe.setupIntents.create({ automatic_payment_methods: { enabled: true, allow_redirects: 'never' } });
  const setupSeen = await browser.setupIntents.retrieve(seti.id, { client_secret: seti.client_secret! });
  t.equal(setupSeen.id, seti.id);
  const setupDone = await browser.setupIntents.confirm(seti.id, {
    payment_method: 'pm_card_visa',
    client_secret: seti.client_secret!,
  } as Stripe.SetupIntentConfirmParams);
  t.equal(setupDone.status, 'succeeded');
});

t.test('the publishable key is refused elsewhere and without the right client_secret', async (t) => {
  const listed = await browser.customers.list().catch((e) => e);
  t.type(listed, Stripe.errors.StripeAuthenticationError);
  t.equal(listed.statusCode, 401);
  t.match(listed.message, /cannot be made with a publishable API key/);
  const refund = await browser.refunds.create({ charge: 'ch_x' }).catch((e) => e);
  t.equal(refund.statusCode, 401, 'a secret-key call');

  const pi = await stripe.paymentIntents.create({ amount: 1_000, currency: 'usd', automatic_payment_methods: { enabled: true, allow_redirects: 'never' } });
  const noSecret = await browser.paymentIntents.retrieve(pi.id).catch((e) => e);
  t.equal(noSecret.statusCode, 400);
  t.equal(noSecret.param, 'client_secret');
  const other = await stripe.paymentIntents.create({ amount: 1_000, currency: 'usd', automatic_payment_methods: { enabled: true, allow_redirects: 'never' } });
  const wrong = await browser.paymentIntents
    .confirm(pi.id, { payment_method: 'pm_card_visa', client_secret: other.client_secret! } as Stripe.PaymentIntentConfirmParams)
    .catch((e) => e);
  t.equal(wrong.statusCode, 400);
  t.match(wrong.message, /does not match the client_secret associated with the PaymentIntent/);
  t.equal((await stripe.paymentIntents.retrieve(pi.id)).status, 'requires_payment_method', 'nothing was confirmed');
});

t.test('Stripe.js style: the publishable key as the `key` parameter, no Authorization header', async (t) => {
  // What Stripe.js sends from a browser: form bodies (query strings for a GET) carrying `key`.
  const form = (path: string, fields: Record<string, string>) =>
    fetch(`${gw.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields) });
  const seti = await stripe.setupIntents.create({ automatic_payment_methods: { enabled: true, allow_redirects: 'never' } });
  const seen = await fetch(`${gw.url}/v1/setup_intents/${seti.id}?${new URLSearchParams({ key: publishableKey, client_secret: seti.client_secret! })}`);
  t.equal(seen.status, 200);
  t.equal(((await seen.json()) as Stripe.SetupIntent).id, seti.id);

  const pm = await form('/v1/payment_methods', { key: publishableKey, type: 'card', 'card[token]': 'tok_visa' });
  t.equal(pm.status, 200, 'payment methods are made with the key in the body');
  const pmId = ((await pm.json()) as Stripe.PaymentMethod).id;
  const confirmed = await form(`/v1/setup_intents/${seti.id}/confirm`, { key: publishableKey, client_secret: seti.client_secret!, payment_method: pmId });
  t.equal(confirmed.status, 200);
  t.equal(((await confirmed.json()) as Stripe.SetupIntent).status, 'succeeded');
  t.equal((await stripe.setupIntents.retrieve(seti.id)).payment_method, pmId);

  const wrongSecret = await form(`/v1/setup_intents/${seti.id}/confirm`, { key: publishableKey, client_secret: 'seti_x_secret_y' });
  t.equal(wrongSecret.status, 400);
  const elsewhere = await fetch(`${gw.url}/v1/customers?key=${publishableKey}`);
  t.equal(elsewhere.status, 401, 'the key parameter is still only a publishable key');
  t.match(((await elsewhere.json()) as any).error.message, /publishable API key/);
  const secretInBody = await form('/v1/customers', { key: gw.apiKey, email: 'a@example.com' });
  t.equal(secretInBody.status, 401, 'a secret key belongs in the Authorization header');
  t.match(((await secretInBody.json()) as any).error.message, /did not provide an API key/);
});

t.test('customer sessions and ephemeral keys', async (t) => {
  const customer = await stripe.customers.create({ email: 'jenny@example.com' });
  const session = await stripe.customerSessions.create({ customer: customer.id, components: { pricing_table: { enabled: true } } });
  t.equal(session.object, 'customer_session');
  t.match(session.client_secret, /^cuss_secret_/);
  t.equal(session.customer, customer.id);
  t.equal(session.expires_at - session.created, 1800);
  t.equal(session.components!.pricing_table.enabled, true);
  t.equal(session.components!.buy_button.enabled, false);
  const none = await stripe.customerSessions.create({ customer: customer.id, components: {} }).catch((e) => e);
  t.equal(none.statusCode, 400);
  const missing = await stripe.customerSessions.create({ customer: 'cus_missing', components: { pricing_table: { enabled: true } } }).catch((e) => e);
  t.equal(missing.statusCode, 404);

  const key = await stripe.ephemeralKeys.create({ customer: customer.id }, { apiVersion: '2020-08-27' });
  t.match(key.id, /^ephkey_/);
  t.match(key.secret, /^ek_test_/);
  t.same((key as unknown as { associated_objects: unknown }).associated_objects, [{ id: customer.id, type: 'customer' }]);
  t.equal(key.expires - key.created, 3600);
  // The SDK insists on the version itself; a bare request without Stripe-Version is refused too.
  const bare = await fetch(`${gw.url}/v1/ephemeral_keys`, {
    method: 'POST',
    headers: { authorization: `Bearer ${gw.apiKey}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: `customer=${customer.id}`,
  });
  t.equal(bare.status, 400);
  t.match(((await bare.json()) as any).error.message, /Stripe-Version/);
  const revoked = await stripe.ephemeralKeys.del(key.id);
  t.equal(revoked.id, key.id);
  t.equal(revoked.secret, undefined, 'a revoked key is answered without its secret');
  t.ok(revoked.expires <= key.expires);
  const withPk = await browser.ephemeralKeys.create({ customer: customer.id }, { apiVersion: '2020-08-27' }).catch((e) => e);
  t.equal(withPk.statusCode, 401, 'only the secret key makes ephemeral keys');
});
